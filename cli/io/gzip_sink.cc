#include "cli/io/gzip_sink.h"

#include <zlib.h>

#include <vector>

#include "cli/io/io_error.h"

namespace cli {

struct GzipFileSink::Stream {
  z_stream z{};
  std::vector<unsigned char> out = std::vector<unsigned char>(64 * 1024);
};

bool is_gzip_path(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

GzipFileSink::GzipFileSink(AtomicOutputFile& file) : file_(file), stream_(std::make_unique<Stream>()) {
  // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
  if (deflateInit2(&stream_->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    throw IoError(printable_path(file.path()) + ": cannot start gzip compression");
  }
}

GzipFileSink::~GzipFileSink() { deflateEnd(&stream_->z); }

void GzipFileSink::deflate_some(std::string_view data, int mode) {
  z_stream& z = stream_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  do {
    z.next_out = stream_->out.data();
    z.avail_out = static_cast<uInt>(stream_->out.size());
    const int rc = deflate(&z, mode);
    if (rc == Z_STREAM_ERROR) throw IoError(printable_path(file_.path()) + ": gzip compression failed");
    const size_t produced = stream_->out.size() - z.avail_out;
    file_.write(std::string_view(reinterpret_cast<const char*>(stream_->out.data()), produced));
  } while (z.avail_out == 0 || (mode == Z_FINISH && z.avail_in > 0));
}

void GzipFileSink::write_line(std::string_view text, LineEnding ending) {
  deflate_some(text, Z_NO_FLUSH);
  deflate_some(line_ending_chars(ending), Z_NO_FLUSH);
}

void GzipFileSink::finish() { deflate_some({}, Z_FINISH); }

}  // namespace cli
