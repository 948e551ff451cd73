# cmake -DINPUT=<file> -DOUTPUT=<file.inc> -P EmbedFile.cmake
# Writes the contents of INPUT as one C++ raw string literal, to be used as
#   static constexpr llvm::StringLiteral kText =
#   #include "file.inc"
#       ;
# (mpt_embed_files in MPTLibrary.cmake; no file is read at run time).
file(READ "${INPUT}" content)
string(FIND "${content}" ")mpt_embed\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter )mpt_embed\"")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT} by cmake/EmbedFile.cmake; do not edit.\n"
  "R\"mpt_embed(${content})mpt_embed\"\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
