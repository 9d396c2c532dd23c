# Extra tests that are not one-QtTest-per-file. Other areas may append here.

# libFuzzer run over the GGUF reader (clang), see docs/fuzzing.md.
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/CMakeLists.txt)

# The proof against the real engine: generates GGUFs with real hyperparameters, loads them with
# the llama.cpp shipped in node-llama-cpp@3.21.1, and compares every buffer with `headroom-cli plan`.
# Skipped (exit 77) without node/npm; see tests/validation/run.sh.
find_program(HEADROOM_NODE node)
if(HEADROOM_NODE)
  add_test(NAME validation_llama_cpp
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/validation/run.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  set_tests_properties(validation_llama_cpp PROPERTIES LABELS validation TIMEOUT 1500 SKIP_RETURN_CODE 77
                       RESOURCE_LOCK llama_cpp_memory)
endif()
