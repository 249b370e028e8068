# libnmt.so (api/ behind include/nmt/), its CMake package and pkg-config file, and the Python module `nmt`
# (python/, pybind11), built and installed beside the program (docs/library.md). Included from the top
# CMakeLists.txt after the static libraries, which are built position-independent for it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# Only include/nmt's NMT_API names are exported: hidden visibility for api/, --exclude-libs hides the static
# libraries' symbols linked in, and the version script the std:: templates instantiated here.
file(GLOB NMT_API_SOURCES CONFIGURE_DEPENDS api/*.cc)
add_library(nmt_library SHARED ${NMT_API_SOURCES})
set_target_properties(nmt_library PROPERTIES OUTPUT_NAME nmt EXPORT_NAME nmt VERSION ${PROJECT_VERSION} SOVERSION 0
                                             CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
target_include_directories(nmt_library PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/include>
                                              $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(nmt_library PRIVATE nmt_front nmt_documents ${CMAKE_DL_LIBS})
target_compile_features(nmt_library PUBLIC cxx_std_17)  # std::optional in nmt/options.h
target_link_options(nmt_library PRIVATE -Wl,--exclude-libs,ALL
                    -Wl,--version-script=${CMAKE_CURRENT_SOURCE_DIR}/packaging/libnmt.map)
# Every symbol resolved at link time, but under clang's sanitizers, whose runtime only programs link.
if(NOT NMT_SANITIZE AND NOT NMT_FUZZ)
  target_link_options(nmt_library PRIVATE -Wl,--no-undefined)
endif()
set_property(TARGET nmt_library APPEND PROPERTY LINK_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/packaging/libnmt.map)
file(RELATIVE_PATH library_to_data /${CMAKE_INSTALL_LIBDIR} /${CMAKE_INSTALL_DATADIR}/nmt)
set_source_files_properties(api/translator.cc PROPERTIES COMPILE_DEFINITIONS
                            "NMT_INSTALL_DATA_DIR=\"${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/nmt\";NMT_LIBRARY_TO_DATA=\"${library_to_data}\"")
add_library(nmt::nmt ALIAS nmt_library)

install(TARGETS nmt_library EXPORT nmtTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY include/nmt DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set(NMT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/nmt)
install(EXPORT nmtTargets NAMESPACE nmt:: DESTINATION ${NMT_CMAKE_DIR})
configure_package_config_file(packaging/nmtConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/nmtConfig.cmake
                              INSTALL_DESTINATION ${NMT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/nmtConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nmtConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/nmtConfigVersion.cmake
        DESTINATION ${NMT_CMAKE_DIR})
# pkg-config: the prefix is found from the .pc file's own place, so `cmake --install --prefix` relocates it.
set(NMT_PC_DIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
file(RELATIVE_PATH NMT_PC_TO_PREFIX /${NMT_PC_DIR} /)
configure_file(packaging/nmt.pc.in ${CMAKE_CURRENT_BINARY_DIR}/nmt.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/nmt.pc DESTINATION ${NMT_PC_DIR})

# What `make install` builds.
add_custom_target(nmt_installed DEPENDS nmt nmt_man nmt_library)

# The Python module for Debian's /usr/bin/python3, with Debian's python3-pybind11; skipped without it.
set(NMT_PYTHON /usr/bin/python3 CACHE FILEPATH "The Python the module is built for")
set(PYTHON_EXECUTABLE ${NMT_PYTHON})
find_package(pybind11 CONFIG QUIET)
if(pybind11_FOUND)
  pybind11_add_module(nmt_python MODULE NO_EXTRAS python/nmt_module.cc python/convert.cc)
  set_target_properties(nmt_python PROPERTIES OUTPUT_NAME nmt CXX_VISIBILITY_PRESET hidden
                                              LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/python)
  target_link_libraries(nmt_python PRIVATE nmt_library)
  # Debian's places: /usr/lib/python3/dist-packages for /usr, /usr/local/lib/python3.X/dist-packages for
  # /usr/local (both on its sys.path), PREFIX/lib/python3/dist-packages elsewhere (PYTHONPATH names it).
  execute_process(COMMAND ${NMT_PYTHON} -c "import sys; print('%d.%d' % sys.version_info[:2])"
                  OUTPUT_VARIABLE NMT_PYTHON_VERSION OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(CMAKE_INSTALL_PREFIX STREQUAL "/usr/local")
    set(NMT_PYTHON_DIR lib/python${NMT_PYTHON_VERSION}/dist-packages)
  else()
    set(NMT_PYTHON_DIR lib/python3/dist-packages)
  endif()
  if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
    file(RELATIVE_PATH python_to_lib /${NMT_PYTHON_DIR} /${CMAKE_INSTALL_LIBDIR})
    set_target_properties(nmt_python PROPERTIES INSTALL_RPATH "$ORIGIN/${python_to_lib}")
  endif()
  install(TARGETS nmt_python LIBRARY DESTINATION ${NMT_PYTHON_DIR})
  install(FILES python/nmt.pyi DESTINATION ${NMT_PYTHON_DIR})
  add_dependencies(nmt_installed nmt_python)
else()
  message(STATUS "pybind11 not found (Debian: python3-pybind11): the Python module is not built")
endif()
