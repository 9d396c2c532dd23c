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
