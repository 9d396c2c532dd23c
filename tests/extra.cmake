# Extra wiring for the generated test targets (included at the end of tests/CMakeLists.txt).

# QtTest classes need moc (the `#include "test_x.moc"` at the end of each file); the generic
# headroom_add_tests() does not switch it on, so do it here for every test target.
file(GLOB _headroom_all_tests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/*/test_*.cpp)
foreach(_src ${_headroom_all_tests})
  get_filename_component(_name ${_src} NAME_WE)
  if(TARGET ${_name})
    set_target_properties(${_name} PROPERTIES AUTOMOC ON)
  endif()
endforeach()

# CLI tests run the built binary.
if(TARGET test_cli_probe)
  add_dependencies(test_cli_probe headroom-cli)
endif()

# A stand-in NVML for the probe's dlopen path (tests/probe/fake_nvml.c).
if(TARGET test_nvml_probe)
  add_library(headroom_fake_nvml SHARED ${CMAKE_CURRENT_SOURCE_DIR}/probe/fake_nvml.c)
  set_target_properties(headroom_fake_nvml PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_dependencies(test_nvml_probe headroom_fake_nvml)
  target_compile_definitions(test_nvml_probe PRIVATE
    HEADROOM_FAKE_NVML="$<TARGET_FILE:headroom_fake_nvml>")
endif()
