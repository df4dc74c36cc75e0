# Keeps llama-cpp-python's build to the libraries it loads: libllama and libggml.
#
# llama-cpp-python forces llama.cpp's `common` library on (LLAMA_BUILD_COMMON, cached with FORCE)
# and llama.cpp installs it, but the Python package never loads it: its ctypes bindings open
# libllama, libggml and, for multimodal models, libmtmd (which install.sh leaves out). `common`,
# with the HTTP library it links, was almost half of the C++ compiled (177 of 388 CPU-seconds
# in llama-cpp-sys-2's copy of the same sources, docs/build-times.md). Here it is built from one
# empty file, so the install rule llama.cpp keeps for it still finds a library, and cpp-httplib
# is left out of the build. libllama and libggml are compiled exactly as before.
#
# install.sh passes this file as CMAKE_PROJECT_INCLUDE, which cmake includes after every
# `project()`; the first include defers the change to the end of the top-level directory, when
# llama.cpp's targets all exist.

include_guard(GLOBAL)

function(peer_llama_common_emptied)
  if(NOT TARGET llama-common)
    return()
  endif()
  set(empty "${CMAKE_BINARY_DIR}/llama-common-unused.cpp")
  file(WRITE "${empty}" "// llama-cpp-python never loads libllama-common (llama-cpp-python-no-common.cmake).\n")
  set_property(TARGET llama-common PROPERTY SOURCES "${empty}")
  foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
    get_target_property(libraries llama-common ${property})
    if(libraries)
      list(FILTER libraries EXCLUDE REGEX "cpp-httplib")
      set_property(TARGET llama-common PROPERTY ${property} ${libraries})
    endif()
  endforeach()
  if(TARGET cpp-httplib)
    set_property(TARGET cpp-httplib PROPERTY EXCLUDE_FROM_ALL TRUE)
  endif()
endfunction()

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL peer_llama_common_emptied)
