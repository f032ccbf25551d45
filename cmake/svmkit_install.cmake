# cmake --install: headers, libsvmkit, the CMake package (find_package(svmkit) -> svmkit::core)
# and svmkit.pc for pkg-config.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)
# detail/ holds internals. Only the four that public headers include (parallel.hpp: the chunked
# passes of data.hpp; vec_math.hpp: kernel.hpp's inline kernels; assembled_hessian.hpp:
# objective.hpp's dense Hessian kernels; branchless.hpp: loss.hpp's branch-free squared hinge)
# are installed; the thread team,
# the kernel cache, SMO's working-set kernels, the SIMD dispatcher and SmSVM's row terms are not
# part of the API.
# An allow-list, so that a new internal header stays internal without touching this file.
install(DIRECTORY cpp/include/svmkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  PATTERN "detail" EXCLUDE)
install(FILES cpp/include/svmkit/detail/assembled_hessian.hpp cpp/include/svmkit/detail/parallel.hpp
  cpp/include/svmkit/detail/vec_math.hpp cpp/include/svmkit/detail/branchless.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/svmkit/detail)
install(FILES "${SVMKIT_GENERATED_INCLUDE}/svmkit/version.hpp"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/svmkit)
if(TARGET svmkit_eigen)
  install(DIRECTORY third_party/eigen/Eigen DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/svmkit/third_party/eigen)
  install(FILES third_party/eigen/COPYING.MPL2 third_party/eigen/COPYING.README
    DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/svmkit/third_party/eigen)
  install(TARGETS svmkit_eigen EXPORT svmkitTargets)
endif()
install(TARGETS svmkit_core EXPORT svmkitTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT svmkitTargets NAMESPACE svmkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/svmkit)
configure_package_config_file(cmake/svmkitConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/svmkitConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/svmkit)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/svmkitConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/svmkitConfig.cmake"
  "${CMAKE_CURRENT_BINARY_DIR}/svmkitConfigVersion.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/svmkit)

# pkg-config: the same flags the CMake target carries (OpenMP's on the compile and link lines:
# the headers use its pragmas and a static libsvmkit needs its runtime).
if(TARGET svmkit_eigen)
  set(SVMKIT_PC_REQUIRES "")
  set(SVMKIT_PC_EIGEN_CFLAGS "-I\${includedir}/svmkit/third_party/eigen")
else()
  set(SVMKIT_PC_REQUIRES "eigen3")
  set(SVMKIT_PC_EIGEN_CFLAGS "")
endif()
set(SVMKIT_PC_OPENMP "")
if(OpenMP_CXX_FOUND)
  string(REPLACE ";" " " SVMKIT_PC_OPENMP "${OpenMP_CXX_FLAGS}")
endif()
configure_file(cmake/svmkit.pc.in "${CMAKE_CURRENT_BINARY_DIR}/svmkit.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/svmkit.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
