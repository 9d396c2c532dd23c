# Writes headroom-cli.1 (roff) from the CLI's own --help texts, so the man page can never
# disagree with the program: the top-level help, then every subcommand's help.
#   cmake -DCLI=path/to/headroom-cli -DOUT=headroom-cli.1 -DVERSION=0.1.0 -P man.cmake
foreach(var CLI OUT VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "man.cmake: pass -D${var}=...")
  endif()
endforeach()

function(run_help out_var)
  execute_process(COMMAND ${CLI} ${ARGN} --help
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc
                  TIMEOUT 30)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "man.cmake: '${CLI} ${ARGN} --help' exited ${rc}: ${err}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

# Plain text to roff inside a .nf block: escape backslashes and hyphens, and keep a line that
# starts with . or ' from being read as a request.
function(to_roff out_var text)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

run_help(top)
# CLI11 lists subcommands after a "Subcommands:" line, two spaces in, one per line.
set(commands "")
string(FIND "${top}" "Subcommands:" at)
if(at GREATER -1)
  string(SUBSTRING "${top}" ${at} -1 tail)
  string(REPLACE "\n" ";" lines "${tail}")
  foreach(line IN LISTS lines)
    if(line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
      list(APPEND commands ${CMAKE_MATCH_1})
    endif()
  endforeach()
endif()

to_roff(top_roff "${top}")
set(page ".TH HEADROOM\\-CLI 1 \"\" \"headroom\\-cli ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\nheadroom\\-cli \\- plan how a local language model fits this machine\n")
string(APPEND page ".SH SYNOPSIS\n.B headroom\\-cli\n.I COMMAND\n[\\fIOPTIONS\\fR]\n")
string(APPEND page ".SH DESCRIPTION\nheadroom\\-cli prices every context size of a model on a machine: weights, KV cache, recurrent state, compute buffers and experts per device; says which sizes run, which spill and which are refused and why; and exports the launch for llama\\-server, llama\\-swap, Ollama or as JSON.\n")
string(APPEND page ".PP\n.nf\n${top_roff}.fi\n")
if(commands)
  string(APPEND page ".SH COMMANDS\n")
  foreach(cmd IN LISTS commands)
    run_help(sub ${cmd})
    to_roff(sub_roff "${sub}")
    string(REPLACE "-" "\\-" cmd_roff "${cmd}")
    string(APPEND page ".SS ${cmd_roff}\n.nf\n${sub_roff}.fi\n")
  endforeach()
endif()
string(APPEND page ".SH EXIT STATUS\n.TP\n.B 0\nA plan was made (a refused context is an answer, not an error).\n")
string(APPEND page ".TP\n.B 2\nBad arguments.\n.TP\n.B 3\nUnreadable input (a model file, a hardware profile).\n.TP\n.B 4\nThe hardware probe failed.\n")
string(APPEND page ".SH ENVIRONMENT\n.TP\n.B HEADROOM_RESOURCES\nA folder searched first for catalog.json and presets.json.\n")
string(APPEND page ".SH FILES\n.TP\n.I /usr/share/headroom/catalog.json\nThe built\\-in model catalog.\n.TP\n.I /usr/share/headroom/presets.json\nThe built\\-in hardware presets.\n")
string(APPEND page ".SH SEE ALSO\n.BR headroom (1),\n.BR llama\\-server (1)\n")
file(WRITE "${OUT}" "${page}")
