# GUI benchmarks: input-change-to-repaint latency and cold start to first frame. They print
# numbers (run them with QT_QPA_PLATFORM=offscreen on a headless machine); never assert on time.
file(GLOB bench_ui_sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/bench_ui_*.cpp)
foreach(src ${bench_ui_sources})
  get_filename_component(name ${src} NAME_WE)
  add_executable(${name} ${src})
  target_link_libraries(${name} PRIVATE headroom_ui headroom_core)
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bench)
endforeach()
