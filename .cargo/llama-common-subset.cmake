# Compiles only the part of llama.cpp's `common` library that mcpick links.
#
# llama-cpp-sys-2 builds all of `common` (58 objects: the argument parser, chat templates and
# parsers, the model downloader and its HTTP library, ...) for the few functions llama-cpp-2 calls
# through the crate's `wrapper_common.cpp`: the JSON-schema-to-grammar converter and what it and
# the wrapper's other functions (speculative decoding, parameter fitting) reach: 15 objects, found
# by following undefined symbols from `wrapper_common.o` through `libllama-common.a` (the linker
# takes only those members from the archive; the rest were compiled and thrown away). They are the
# 14 sources kept below and `llama-common-base`'s build-info. Compiled one at a time, they took 34
# CPU-seconds, the other 43 objects 143 (docs/build-times.md). What is linked is compiled exactly
# as before.
#
# How it gets in: llama-cpp-sys-2 passes every `CMAKE_*` environment variable to cmake as a
# definition, `.cargo/config.toml` sets CMAKE_PROJECT_INCLUDE to this file, and cmake includes it
# after each `project()` call. At the end of the top-level directory (after `common/` has defined
# its targets) the `llama-common` target keeps the listed sources and stops linking cpp-httplib,
# which is then left out of the build. The llama-cpp-sys-2 version is pinned in Cargo.toml; a new
# one that needs another file fails at link time, naming the missing symbol.

if(NOT PROJECT_NAME STREQUAL "llama.cpp")
  return()
endif()

function(mcpick_llama_common_subset)
  if(NOT TARGET llama-common)
    return()
  endif()
  set(kept
    common.cpp fit.cpp json-schema-to-grammar.cpp json-schema.cpp json.cpp log.cpp
    ngram-cache.cpp ngram-map.cpp ngram-mod.cpp reasoning-budget.cpp sampling.cpp
    speculative.cpp trie.cpp unicode.cpp)
  set(sources "")
  foreach(name IN LISTS kept)
    list(APPEND sources "${CMAKE_SOURCE_DIR}/common/${name}")
  endforeach()
  set_property(TARGET llama-common PROPERTY SOURCES ${sources})
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

cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL mcpick_llama_common_subset)
