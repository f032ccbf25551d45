# libsvmkit as a shared library (-DBUILD_SHARED_LIBS=ON): a SONAME carrying the version (0.x
# releases may change the ABI at each minor version) and only the svmkit namespace exported,
# so Eigen's and the standard library's instantiations stay internal.
set_target_properties(svmkit_core PROPERTIES
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR})
if(WIN32)
  set_target_properties(svmkit_core PROPERTIES WINDOWS_EXPORT_ALL_SYMBOLS ON)
elseif(APPLE)
  target_link_options(svmkit_core PRIVATE
    "LINKER:-exported_symbols_list,${CMAKE_CURRENT_LIST_DIR}/svmkit.exported_symbols")
else()
  target_link_options(svmkit_core PRIVATE
    "LINKER:--version-script=${CMAKE_CURRENT_LIST_DIR}/svmkit.version_script")
  set_property(TARGET svmkit_core APPEND PROPERTY
    LINK_DEPENDS "${CMAKE_CURRENT_LIST_DIR}/svmkit.version_script")
endif()
