# Fails when a committed, generated document differs from what the program prints now.
# Usage: cmake -DEXE=<llmsize> -DARGS=limits -DDOC=<docs/LIMITS.md> -P check_doc.cmake
execute_process(COMMAND ${EXE} ${ARGS} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${EXE} ${ARGS} failed with ${rc}")
endif()
file(READ ${DOC} doc)
if(NOT out STREQUAL doc)
  message(FATAL_ERROR "${DOC} is out of date: regenerate it with `llmsize ${ARGS} > ${DOC}`")
endif()
