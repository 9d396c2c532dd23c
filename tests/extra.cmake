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

# The layout test again under a real X server (Xvfb), at 100 % on a 1920×1080 screen and at
# 200 % (QT_SCALE_FACTOR=2) on a 3840×2160 one — the same logical sizes. Its screenshots land in
# build/tests/screenshots; `cmake --build build --target docs-screenshots` copies them into docs/
# for the README (a manual step: tests never write into the source tree).
find_program(HEADROOM_XVFB_RUN xvfb-run)
if(HEADROOM_XVFB_RUN AND TARGET test_layout)
  add_test(NAME test_layout_xvfb
    COMMAND ${HEADROOM_XVFB_RUN} -a -s "-screen 0 1920x1080x24" $<TARGET_FILE:test_layout>)
  add_test(NAME test_layout_xvfb_200
    COMMAND ${HEADROOM_XVFB_RUN} -a -s "-screen 0 3840x2160x24" $<TARGET_FILE:test_layout>)
  set_tests_properties(test_layout_xvfb PROPERTIES LABELS ui TIMEOUT 300
    ENVIRONMENT "QT_QPA_PLATFORM=xcb")
  set_tests_properties(test_layout_xvfb_200 PROPERTIES LABELS ui TIMEOUT 300
    ENVIRONMENT "QT_QPA_PLATFORM=xcb;QT_SCALE_FACTOR=2")
  add_custom_target(docs-screenshots
    COMMAND ${CMAKE_COMMAND} -E copy_if_different
      ${CMAKE_BINARY_DIR}/tests/screenshots/screenshot-main.png
      ${CMAKE_BINARY_DIR}/tests/screenshots/layout-1024x700.png
      ${CMAKE_BINARY_DIR}/tests/screenshots/layout-1366x768.png
      ${CMAKE_BINARY_DIR}/tests/screenshots/layout-1920x1080.png
      ${CMAKE_SOURCE_DIR}/docs/
    COMMENT "Copying the test screenshots into docs/ (run ctest -L ui first)")
endif()
