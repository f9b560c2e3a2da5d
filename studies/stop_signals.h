// What happens when qcesim is told to stop (SIGINT, SIGTERM, SIGHUP) or its parent dies.
//
// The handler does only async-signal-safe work: it sends SIGTERM to the simulation processes
// this process started (and reaps them, SIGKILL after two seconds), removes the temporary
// files of outputs not yet committed, and exits with 128 + the signal's number (130 for
// SIGINT, 143 for SIGTERM). Children of `run` and `sweep` also die with their parent, even
// when it is killed with SIGKILL (PR_SET_PDEATHSIG): they are never left simulating alone.
#pragma once

#include <sys/types.h>

namespace qcesim::studies {

// Installs the handler for SIGINT, SIGTERM and SIGHUP (once per process; later calls do nothing).
void install_stop_handlers();

// A simulation process this process started; forgotten when it has been reaped.
void register_child(pid_t pid);
void forget_child(pid_t pid);

// A temporary file to remove if the process is stopped before the output is committed.
// Returns a slot for forget_temp_file, or -1 when every slot is taken (the file is then
// removed only on the normal exit paths).
int register_temp_file(const char* path);
// The same for a name in a folder held open (removed with unlinkat, so a folder on the way
// swapped meanwhile does not send the removal elsewhere); the folder stays open until forgotten.
int register_temp_file_at(int folder, const char* name);
// A temporary folder: removed (rmdir) after the files, so register the files in it too.
int register_temp_dir(const char* path);
void forget_temp_file(int slot);

// In a freshly forked child: forget the parent's children and temporary files, and die with
// the parent (SIGTERM when it goes). Exits at once if the parent is already gone.
void become_child(pid_t parent);

}  // namespace qcesim::studies
