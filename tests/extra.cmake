# Extra tests that are not one-QtTest-per-file. Other areas may append here.

# libFuzzer run over the GGUF reader (clang), see docs/fuzzing.md.
include(${CMAKE_CURRENT_SOURCE_DIR}/fuzz/CMakeLists.txt)

# The CLI tests run the built binary (HEADROOM_BIN_DIR "/headroom-cli"): build it first.
file(GLOB cli_test_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/cli/test_*.cpp)
foreach(src ${cli_test_sources})
  get_filename_component(name ${src} NAME_WE)
  if(TARGET ${name} AND TARGET headroom-cli)
    add_dependencies(${name} headroom-cli)
  endif()
endforeach()

# The proof against the real engine: generates GGUFs with real hyperparameters, loads them with
# the llama.cpp shipped in node-llama-cpp@3.21.1, and compares every buffer with `headroom-cli plan`.
# Skipped (exit 77) without node/npm; see tests/validation/run.sh.
find_program(HEADROOM_NODE node)
if(HEADROOM_NODE)
  add_test(NAME validation_llama_cpp
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/validation/run.sh ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
  # 20 minutes: the suite's share of the 90-minute CI budget on a 2-core runner (install, 25
  # models x 6-7 settings, compare); validate.js sizes its settings for it.
  set_tests_properties(validation_llama_cpp PROPERTIES LABELS validation TIMEOUT 1200 SKIP_RETURN_CODE 77
                       RESOURCE_LOCK llama_cpp_memory)
endif()

# A stand-in NVML for the probe's dlopen path (tests/probe/fake_nvml.c).
if(TARGET test_nvml_probe)
  add_library(headroom_fake_nvml SHARED ${CMAKE_CURRENT_SOURCE_DIR}/probe/fake_nvml.c)
  set_target_properties(headroom_fake_nvml PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/tests)
  add_dependencies(test_nvml_probe headroom_fake_nvml)
  target_compile_definitions(test_nvml_probe PRIVATE
    HEADROOM_FAKE_NVML="$<TARGET_FILE:headroom_fake_nvml>")
endif()
# --- packaging: desktop entry, AppStream metainfo, --help and man page, the .deb --------------
set(_pkg ${PROJECT_BINARY_DIR}/packaging)
find_program(DESKTOP_FILE_VALIDATE desktop-file-validate)
if(DESKTOP_FILE_VALIDATE)
  add_test(NAME packaging_desktop_file
           COMMAND ${DESKTOP_FILE_VALIDATE} ${_pkg}/${HEADROOM_APP_ID}.desktop)
endif()
find_program(APPSTREAMCLI appstreamcli)
if(APPSTREAMCLI)
  add_test(NAME packaging_metainfo
           COMMAND ${APPSTREAMCLI} validate --no-net --explain
                   ${_pkg}/${HEADROOM_APP_ID}.metainfo.xml)
endif()
add_test(NAME packaging_cli_help_and_man
         COMMAND ${CMAKE_COMMAND} -DCLI=$<TARGET_FILE:headroom-cli> -DMAN=${_pkg}/headroom-cli.1
                 -P ${PROJECT_SOURCE_DIR}/packaging/tests/check_help.cmake)
find_program(DPKG_DEB dpkg-deb)
find_program(DPKG_SHLIBDEPS dpkg-shlibdeps)
if(DPKG_DEB AND DPKG_SHLIBDEPS)
  add_test(NAME packaging_deb
           COMMAND sh ${PROJECT_SOURCE_DIR}/packaging/tests/check_deb.sh ${PROJECT_BINARY_DIR}
                   ${PROJECT_SOURCE_DIR} ${HEADROOM_INSTALL_DESKTOP})
  set_tests_properties(packaging_deb PROPERTIES TIMEOUT 600)
endif()
set_tests_properties(packaging_cli_help_and_man PROPERTIES LABELS packaging)

# The main-window test runs the real probe (headroom-cli probe --json) as a child process.
if(TARGET test_mainwindow AND TARGET headroom-cli)
  add_dependencies(test_mainwindow headroom-cli)
endif()

# The remote-model test also checks the hf: file picker (core/remote) directly.
if(TARGET test_cli_remote AND TARGET headroom_remote)
  target_link_libraries(test_cli_remote PRIVATE headroom_remote)
endif()
# Both remote-model tests run tests/common/gguf_http_server.py (python3) on the loopback address.
foreach(t test_cli_remote test_modelpicker_remote)
  if(TARGET ${t})
    target_compile_definitions(${t} PRIVATE
      HEADROOM_GGUF_HTTP_SERVER="${CMAKE_CURRENT_SOURCE_DIR}/common/gguf_http_server.py")
  endif()
endforeach()
