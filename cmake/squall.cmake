# Helpers that make adding a layer, a test, an example or a fuzz target one line.

# Warnings for squall's own targets.
function(squall_warnings target)
  # Designated initializers that name only some fields of an options struct are the point.
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
  if(SQUALL_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

# squall_add_layer(<layer> [NOT_FUZZED] [FUZZ_SOURCES <patterns...>] [DEPENDS <targets...>])
# A static library squall_<layer> from src/<layer>/*.cpp, public headers in include/.
# NOT_FUZZED layers hold no parser and are left out of the fuzz build (clang 14 cannot compile
# some coroutine code with sanitizer coverage: "Cannot represent a difference across sections").
function(squall_add_layer layer)
  cmake_parse_arguments(ARG "NOT_FUZZED" "" "DEPENDS;FUZZ_SOURCES" ${ARGN})
  if(SQUALL_FUZZ AND ARG_NOT_FUZZED)
    return()
  endif()
  file(GLOB sources CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/${layer}/*.cpp)
  if(NOT sources)
    return()
  endif()
  # A fuzzed layer may depend on layers the fuzz build leaves out (http on net): its parsers
  # must not need them, and the fuzz build links without them.
  set(depends ${ARG_DEPENDS})
  if(SQUALL_FUZZ)
    set(depends)
    foreach(dep ${ARG_DEPENDS})
      if(TARGET ${dep} OR NOT dep MATCHES "^squall_")
        list(APPEND depends ${dep})
      endif()
    endforeach()
  endif()
  # FUZZ_SOURCES: in the fuzz build, only the layer's files matching these patterns (its parsers).
  if(SQUALL_FUZZ AND ARG_FUZZ_SOURCES)
    list(TRANSFORM ARG_FUZZ_SOURCES PREPEND ${CMAKE_CURRENT_SOURCE_DIR}/${layer}/ OUTPUT_VARIABLE patterns)
    file(GLOB sources CONFIGURE_DEPENDS ${patterns})
  endif()
  add_library(squall_${layer} STATIC ${sources})
  target_include_directories(squall_${layer} PUBLIC ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(squall_${layer} PUBLIC ${depends})
  squall_warnings(squall_${layer})
  set_property(GLOBAL APPEND PROPERTY SQUALL_LAYERS squall_${layer})
endfunction()

# squall_add_test(<file>): tests/<layer>/<concept>_test.cpp becomes the executable
# <layer>_<concept>_test, linked with everything, its cases discovered by ctest.
function(squall_add_test file)
  get_filename_component(name ${file} NAME_WE)
  get_filename_component(dir ${file} DIRECTORY)
  get_filename_component(layer ${dir} NAME)
  set(target ${layer}_${name})
  add_executable(${target} ${file})
  target_link_libraries(${target} PRIVATE squall squall_test_support GTest::gtest_main GTest::gmock)
  squall_warnings(${target})
  gtest_discover_tests(${target} DISCOVERY_MODE PRE_TEST PROPERTIES LABELS ${layer}
                       TIMEOUT 300)
endfunction()

# squall_add_example(<file>): examples/<name>.cpp becomes examples/<name>, run by ctest.
function(squall_add_example file)
  get_filename_component(name ${file} NAME_WE)
  add_executable(example_${name} ${file})
  set_target_properties(example_${name} PROPERTIES OUTPUT_NAME ${name}
                        RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/examples)
  target_link_libraries(example_${name} PRIVATE squall)
  squall_warnings(example_${name})
endfunction()
