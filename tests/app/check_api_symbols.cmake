# The JS API module binds the core only: its symbol map (function names of the linked
# module, from the llmsize_api_symbols twin) must hold core functions and no ImGui, app or
# reference-model code. Usage: cmake -DSYMBOLS=<llmsize_api_symbols.js.symbols> -P check_api_symbols.cmake
if(NOT EXISTS "${SYMBOLS}")
  message(FATAL_ERROR "no symbol map at ${SYMBOLS}")
endif()
file(STRINGS "${SYMBOLS}" core REGEX "llmsize::core::")
list(LENGTH core n_core)
if(n_core LESS 50)
  message(FATAL_ERROR "${SYMBOLS} names only ${n_core} core functions: the map holds no names, so the check would prove nothing")
endif()
file(STRINGS "${SYMBOLS}" ui REGEX "ImGui|ImDraw|ImFont|llmsize::app::|llmsize::ref::|glfw")
if(ui)
  list(LENGTH ui n_ui)
  list(SUBLIST ui 0 5 first)
  string(REPLACE ";" "\n  " first "${first}")
  message(FATAL_ERROR "the JS API module links ${n_ui} UI or reference-model functions, e.g.\n  ${first}")
endif()
message(STATUS "JS API module: ${n_core} core functions, no ImGui, app or ref code")
