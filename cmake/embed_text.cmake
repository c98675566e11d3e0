# embed_text.cmake: writes OUT, a C file defining `const char NAME[]` with the bytes
# of IN (a text file kept as a real file in the tree, e.g. the repro footer .py).
# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_text.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
get_filename_component(base "${IN}" NAME)
file(WRITE "${OUT}.tmp" "/* generated from ${base} by cmake/embed_text.cmake: do not edit */\n"
     "const char ${NAME}[] = {\n${bytes}0x00};\n")
file(COPY_FILE "${OUT}.tmp" "${OUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUT}.tmp")
