// `qcesim ingest ARCHIVE`: a board kit archive (board/qcesim-measure) becomes a profile, one
// scenario per measured workload, a per-function cost table and a report, in one folder
// (ingest/ingest.h; docs/board.md). The archive is read and checked whole before anything is
// written; nothing is written outside the folder, and no file in it that is not a regular file
// is replaced.
#pragma once

#include <iosfwd>
#include <string>

namespace qcesim::cli {

struct IngestOptions {
  std::string archive;
  std::string out_dir;   // default: NAME beside the current folder
  std::string name;      // default: "board"
  std::string profiles;  // default: the scenarios folder qcesim ships (data_dir)
};

int run_ingest(const IngestOptions& opt, std::ostream& out, std::ostream& err);

}  // namespace qcesim::cli
