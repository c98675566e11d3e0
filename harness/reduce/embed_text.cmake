# Writes OUT, a C header holding the text of IN as `static const char
# hz_reduce_ast_py[]` (a NUL-terminated byte array: no escaping to get wrong).
file(READ ${IN} hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
get_filename_component(dir ${OUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
file(WRITE ${OUT} "/* generated from hz_reduce_ast.py by embed_text.cmake */\nstatic const char hz_reduce_ast_py[] = {${bytes} 0};\n")
