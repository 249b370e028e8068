# libnmt and the Python module (docs/library.md): included from the top CMakeLists.txt's tests.
set(library_model ${CMAKE_CURRENT_SOURCE_DIR}/data/multi30k-en-de)
# The public headers compile alone and include no internal header.
add_test(NAME library_headers_alone COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/library/headers_check.sh
         ${CMAKE_CXX_COMPILER} ${CMAKE_CURRENT_SOURCE_DIR})
# libnmt.so exports nmt:: names only.
add_test(NAME library_exports_only_api COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/library/exports_check.sh
         $<TARGET_FILE:nmt_library>)
# The API in-tree: translations equal `nmt translate`'s; forced decoding, threads, errors (api_check.cc).
add_executable(api_check tests/library/api_check.cc)
target_link_libraries(api_check PRIVATE nmt_library Threads::Threads)
# What the install checks install is built with the tests.
add_dependencies(nmt_tests api_check nmt_installed)
add_test(NAME library_api COMMAND sh -c "\"$1\" \"$3\" \"$4\" > \"$5\" && \"$2\" translate -q -m \"$3\" < \"$4\" | cmp - \"$5\""
         sh $<TARGET_FILE:api_check> $<TARGET_FILE:nmt> ${library_model}
         ${CMAKE_CURRENT_SOURCE_DIR}/tests/fixtures/sentences/en.txt ${CMAKE_CURRENT_BINARY_DIR}/api_check.out)
# An installed copy used by a separate CMake project, by pkg-config and by python3 (docs/library.md's examples).
# Under the sanitizers the instrumented libnmt.so cannot load into an uninstrumented program or python3.
if(NMT_SANITIZE OR NMT_FUZZ)
  foreach(check library_installed python_module)
    add_test(NAME ${check} COMMAND sh -c "echo '${NMT_TEST_SKIP_MARKER} a sanitized libnmt.so loads only into sanitized programs'")
    set_tests_properties(${check} PROPERTIES SKIP_REGULAR_EXPRESSION "${NMT_TEST_SKIP_MARKER}")
  endforeach()
  return()
endif()
add_test(NAME library_installed COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/tests/library/installed_check.sh
         ${CMAKE_BINARY_DIR} ${CMAKE_CURRENT_SOURCE_DIR} $<TARGET_FILE:nmt> ${library_model})
set_tests_properties(library_installed PROPERTIES TIMEOUT 300)
if(TARGET nmt_python)
  add_test(NAME python_module COMMAND ${NMT_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/tests/library/python_check.py
           $<TARGET_FILE:nmt> ${library_model})
  set_tests_properties(python_module PROPERTIES TIMEOUT 300
                       ENVIRONMENT PYTHONPATH=$<TARGET_FILE_DIR:nmt_python>)
else()
  add_test(NAME python_module COMMAND sh -c "echo '${NMT_TEST_SKIP_MARKER} the Python module needs python3-pybind11'")
  set_tests_properties(python_module PROPERTIES SKIP_REGULAR_EXPRESSION "${NMT_TEST_SKIP_MARKER}")
endif()
