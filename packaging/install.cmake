# What `make install` and `make deb` ship: the binary, the bundled model, the man page (generated from
# `nmt --help` by help2man at build time) and bash completion; packaging/library.cmake adds libnmt, its
# headers and the Python module. Included from the top CMakeLists.txt.
include(GNUInstallDirs)

option(NMT_GZIP_MAN "Install the man page gzipped (Debian packages)" OFF)
find_program(HELP2MAN help2man REQUIRED)
find_program(GZIP gzip REQUIRED)
set(NMT_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/nmt.1)
add_custom_command(
  OUTPUT ${NMT_MAN_PAGE} ${NMT_MAN_PAGE}.gz
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/packaging/man_include.sh $<TARGET_FILE:nmt>
          ${CMAKE_CURRENT_SOURCE_DIR}/packaging/nmt.h2m ${CMAKE_CURRENT_BINARY_DIR}/nmt.h2m
          ${CMAKE_CURRENT_SOURCE_DIR}/README.md
  COMMAND ${HELP2MAN} --no-info --section=1 --source=nmt
          "--name=neural machine translation on the CPU"
          --include=${CMAKE_CURRENT_BINARY_DIR}/nmt.h2m
          --output=${NMT_MAN_PAGE} $<TARGET_FILE:nmt>
  COMMAND ${GZIP} -9nkf ${NMT_MAN_PAGE}
  DEPENDS nmt ${CMAKE_CURRENT_SOURCE_DIR}/packaging/nmt.h2m ${CMAKE_CURRENT_SOURCE_DIR}/packaging/man_include.sh
          ${CMAKE_CURRENT_SOURCE_DIR}/README.md
  COMMENT "Generating the man page nmt.1 with help2man"
  VERBATIM)
add_custom_target(nmt_man ALL DEPENDS ${NMT_MAN_PAGE})

install(TARGETS nmt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY data/ DESTINATION ${CMAKE_INSTALL_DATADIR}/nmt)
if(NMT_GZIP_MAN)
  install(FILES ${NMT_MAN_PAGE}.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  install(FILES ${NMT_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(FILES packaging/nmt.bash-completion DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME nmt)

# `make deb`: a Debian package installing under /usr, dependencies found by dpkg-shlibdeps.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME nmt)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_PACKAGE_CONTACT "nmt maintainers <nmt@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "neural machine translation on the CPU, with an English-German model")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION text)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libnmt.so.0 ships in the package: a shlibs file for packages built against it, and ldconfig triggers.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# Loaded with dlopen (core/blas_library.h), so dpkg-shlibdeps cannot see it.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libopenblas0")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/package)
include(CPack)
