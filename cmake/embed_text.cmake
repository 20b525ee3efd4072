# cmake -DIN=<file> -DOUT=<file.inc> -P embed_text.cmake: the file as a C++ raw string literal,
# for a source to #include where a string is expected.
file(READ ${IN} content)
string(FIND "${content}" ")squall_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} holds the raw string's delimiter")
endif()
file(WRITE ${OUT} "R\"squall_text(${content})squall_text\"\n")
