# Writes OUT (qcesim.1) with help2man from the built binary's --help and --version, with the
# static sections of docs/man/qcesim.h2m and a COMMANDS section the binary writes itself
# (`qcesim completion man`: every subcommand with its options, so the page cannot drift).
# The page's date is the last commit's (SOURCE_DATE_EPOCH) when known, so it is reproducible.
# Usage: cmake -DQCESIM=<binary> -DHELP2MAN=<help2man> -DSRC=<source dir> -DOUT=<file> -P manpage.cmake
get_filename_component(dir "${OUT}" DIRECTORY)
execute_process(COMMAND ${QCESIM} completion man OUTPUT_VARIABLE commands RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "qcesim completion man failed (${rc})")
endif()
file(READ "${SRC}/docs/man/qcesim.h2m" include)
file(WRITE "${dir}/qcesim.h2m" "${include}${commands}")
if(NOT DEFINED ENV{SOURCE_DATE_EPOCH})
  find_package(Git QUIET)
  if(GIT_FOUND)
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${SRC} log -1 --format=%ct OUTPUT_VARIABLE epoch
                    OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc ERROR_QUIET)
    if(rc EQUAL 0 AND epoch MATCHES "^[0-9]+$")
      set(ENV{SOURCE_DATE_EPOCH} "${epoch}")
    endif()
  endif()
endif()
execute_process(COMMAND ${HELP2MAN} --no-info --section=1 --include=${dir}/qcesim.h2m
                        --output=${OUT}.tmp ${QCESIM}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "help2man failed: ${err}")
endif()
file(RENAME "${OUT}.tmp" "${OUT}")
