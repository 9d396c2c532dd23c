# Extra test suites that are not one-file QtTests.
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/CMakeLists.txt)
