// Output files people name on the command line (--json, --trace, --profile, --plot, --out...).
//
// The name is walked as the kernel walks it, each folder held open, links followed only when the
// user running qcesim or root owns them (model/path_walk.h). A regular file, or a new name in an
// existing folder, is written under a temporary name in the folder held and renamed over it
// there when complete, so a failure or a stop never leaves half
// a file (the temporary file is removed on every exit path, signals included). A character
// device or a FIFO (/dev/stdout, /dev/null, a named pipe) is written straight through: it is
// never replaced by a file, which is what a rename would do to it, as root too. Anything
// else — a folder, a block device, a socket, a missing folder, a new name under /dev or /proc —
// is refused by check_output before any simulation runs.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "model/path_walk.h"

namespace qcesim::cli {

enum class OutputKind {
  replace,        // a regular file or a new name: temporary file, then rename
  write_through,  // a character device or FIFO: opened and written as it is
};

// Classifies FILE for output, or throws model::ConfigError naming `option`, the file, what
// was expected and what was found. Creates nothing that it leaves behind.
OutputKind check_output(const std::string& option, const std::string& file);

// Refuses FILE when it is one of `inputs` (the same file, links followed): a sweep's default
// prefix is its own name, which is its definition's file name in the folder it lives in.
void refuse_input(const std::string& option, const std::string& file, const std::vector<std::string>& inputs);

// An output being written: bytes go to a temporary file (or straight through), and commit()
// makes them the file. Destroyed without commit(), it removes the temporary file.
class OutputFile {
 public:
  OutputFile(const std::string& option, const std::string& file);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Buffered: the bytes reach the file in blocks of 64 KiB, and all of them by commit().
  void write(const char* data, std::size_t n);
  void write(const std::string& s) { write(s.data(), s.size()); }
  void commit();
  const std::string& file() const { return m_file; }

 private:
  void fail(const std::string& what);
  void flush();
  void write_all(const char* data, std::size_t n);

  std::string m_option, m_file;
  std::string m_name, m_tmp;  // the output's and the temporary file's names in m_folder
  model::Fd m_folder;         // the folder walked to (O_PATH), held until the output is renamed
  int m_fd = -1;
  int m_slot = -1;  // stop_signals' temporary-file slot
  bool m_committed = false;
  std::string m_buffer;
};

// The whole text at once.
void write_output(const std::string& option, const std::string& file, const std::string& text);

}  // namespace qcesim::cli
