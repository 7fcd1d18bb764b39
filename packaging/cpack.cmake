# Install rules for the agent's files and the Debian package (`cpack -G DEB` in the build dir;
# README.md "Deploy on a fleet" has the whole rollout, tests/packaging/test_deb.sh runs it).
# Build the package with the prefix it installs to, so the binary's packaged-rules lookup
# (<prefix>/share/rocehealth/rules.json, rules/README.md) and the unit's ExecStart agree:
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DROCEHEALTH_TESTS=OFF
#   cmake --build build-deb --target rocehealth && (cd build-deb && cpack -G DEB)
# Installs: <prefix>/bin/rocehealth (agent/CMakeLists.txt), <prefix>/share/rocehealth/rules.json
# (rules/CMakeLists.txt), and here the systemd unit, /etc/rocehealth/agent.json (a conffile),
# the agent's README and the Prometheus/Grafana examples under <prefix>/share/doc/rocehealth.
include(GNUInstallDirs)

configure_file(${CMAKE_CURRENT_LIST_DIR}/rocehealth-agent.service.in
               ${PROJECT_BINARY_DIR}/packaging/rocehealth-agent.service @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/packaging/rocehealth-agent.service
        DESTINATION lib/systemd/system)
install(FILES ${CMAKE_CURRENT_LIST_DIR}/agent.json DESTINATION /etc/rocehealth)
install(FILES ${PROJECT_SOURCE_DIR}/agent/daemon/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR}
        RENAME agent.md)
install(DIRECTORY ${CMAKE_CURRENT_LIST_DIR}/prometheus/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/prometheus)

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
  message(STATUS "rocehealth: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}; a .deb for Debian "
                 "should be built with -DCMAKE_INSTALL_PREFIX=/usr")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME rocehealth)
set(CPACK_PACKAGE_VENDOR rocehealth)
set(CPACK_PACKAGE_CONTACT "rocehealth maintainers <rocehealth@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RoCE fabric health: counters, RDMA latency probes, findings with evidence, Prometheus agent")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)  # Depends: from the binary's shared libraries
set(CPACK_STRIP_FILES ON)  # debug info stays in the build tree
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ibverbs-providers")
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA
    ${CMAKE_CURRENT_LIST_DIR}/deb/conffiles ${CMAKE_CURRENT_LIST_DIR}/deb/postinst
    ${CMAKE_CURRENT_LIST_DIR}/deb/prerm ${CMAKE_CURRENT_LIST_DIR}/deb/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
