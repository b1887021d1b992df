# colcon / ament_cmake support for the Rust packages of nodes/: every package builds
# through `cargo xtask install --package <pkg>`, the same path as `cargo xtask install`,
# so the whole workspace is compiled once, in the workspace's own target folder (r2r and
# the message bindings are not rebuilt per package), and the project's .cargo/config.toml
# is never touched. Included by nodes/<pkg>/CMakeLists.txt (nodes/tools/<pkg>: one more
# `../`):
#
#   cmake_minimum_required(VERSION 3.14)
#   project(arnie_brain NONE)
#   find_package(ament_cmake REQUIRED)
#   include(${CMAKE_CURRENT_SOURCE_DIR}/../../xtask/cmake/arnie_cargo.cmake)
#   arnie_cargo_package()
#   ament_package()
#
# The build step compiles (one `cargo build --release` of the workspace; concurrent
# packages wait on cargo's lock and then find nothing to do); the install step lays out
# lib/<pkg>/<exe> and share/<pkg>/ under CMAKE_INSTALL_PREFIX. NO_BUILD: a package
# without Rust (arnie_bringup).

# The workspace root, from this file's own place (xtask/cmake/), whatever the depth of
# the package that includes it.
get_filename_component(_arnie_root "${CMAKE_CURRENT_LIST_DIR}/../.." ABSOLUTE)

function(arnie_cargo_package)
  cmake_parse_arguments(ARG "NO_BUILD" "" "" ${ARGN})
  find_program(ARNIE_CARGO cargo REQUIRED)
  if(NOT ARG_NO_BUILD)
  add_custom_target(${PROJECT_NAME}_cargo ALL
    COMMAND "${ARNIE_CARGO}" xtask install --build-only
    WORKING_DIRECTORY "${_arnie_root}"
    COMMENT "cargo build --release of the arnie workspace (shared by every package)"
    USES_TERMINAL)
  endif()
  install(CODE "
    execute_process(
      COMMAND \"${ARNIE_CARGO}\" xtask install --no-build --package ${PROJECT_NAME} --prefix \"\${CMAKE_INSTALL_PREFIX}\"
      WORKING_DIRECTORY \"${_arnie_root}\"
      RESULT_VARIABLE _arnie_result)
    if(NOT _arnie_result EQUAL 0)
      message(FATAL_ERROR \"cargo xtask install --package ${PROJECT_NAME} failed\")
    endif()")
endfunction()
