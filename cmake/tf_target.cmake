# tf_target(TARGET): the one place warnings and sanitizers are applied (cmark's habit).
# Sanitizer flags go per target, never into CMAKE_C_FLAGS, so an AFL++ or fuzzer
# build can swap them (TOOLCHAIN.md).
function(tf_target tgt)
  target_compile_options(${tgt} PRIVATE
    -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wno-unused-parameter -Wno-missing-field-initializers
    -fno-strict-aliasing)   # CPython's object model casts between struct types
  if(TF_WERROR)
    target_compile_options(${tgt} PRIVATE -Werror)
  endif()
  if(TF_SANITIZE)
    target_compile_options(${tgt} PRIVATE -fsanitize=${TF_SANITIZE}
      -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
    get_target_property(kind ${tgt} TYPE)
    if(NOT kind STREQUAL "STATIC_LIBRARY" AND NOT kind STREQUAL "OBJECT_LIBRARY")
      target_link_options(${tgt} PRIVATE -fsanitize=${TF_SANITIZE})
    endif()
  endif()
endfunction()
