# Extra test suites that are not one-file QtTests.
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/CMakeLists.txt)

# The CLI tests run the built binary (HEADROOM_BIN_DIR "/headroom-cli"): build it first.
if(TARGET test_cli_inspect AND TARGET headroom-cli)
  add_dependencies(test_cli_inspect headroom-cli)
endif()
