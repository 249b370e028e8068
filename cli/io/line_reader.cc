#include "cli/io/line_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "cli/io/io_error.h"

namespace cli {

std::string_view line_ending_chars(LineEnding ending) {
  switch (ending) {
    case LineEnding::kLf:
      return "\n";
    case LineEnding::kCrLf:
      return "\r\n";
    case LineEnding::kCr:
      return "\r";
    case LineEnding::kNone:
      break;
  }
  return "";
}

LineReader::LineReader(Source source, std::string name, LineReaderOptions options)
    : source_(source), name_(std::move(name)), options_(options), decoder_(name_) {
  if (options_.buffer_size == 0) throw std::invalid_argument("LineReader: buffer_size must be > 0");
  buffer_.resize(options_.buffer_size);
}

LineReader::LineReader(int fd, std::string name, LineReaderOptions options)
    : LineReader(Source::kFd, std::move(name), options) {
  fd_ = fd;
}

LineReader::LineReader(std::FILE* file, std::string name, LineReaderOptions options)
    : LineReader(Source::kFile, std::move(name), options) {
  file_ = file;
}

LineReader LineReader::open(const std::string& path, LineReaderOptions options) {
  if (path == "-") {
    LineReader reader(STDIN_FILENO, "<stdin>", options);
    struct stat st;
    if (::fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode)) reader.check_encoding();
    return reader;
  }
  core::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) throw_io_error(path, "cannot open for reading", errno);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) throw_io_error(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) throw IoError(printable_path(path) + ": is a directory, not a text file");
  LineReader reader = adopt(std::move(fd), path, options);
  if (S_ISREG(st.st_mode)) reader.check_encoding();  // a file is all there: no waiting for a writer
  return reader;
}

LineReader LineReader::adopt(core::UniqueFd fd, std::string name, LineReaderOptions options) {
  LineReader reader(fd.get(), std::move(name), options);
  reader.owned_fd_ = std::move(fd);
  return reader;
}

LineReader LineReader::from_string(std::string data, std::string name, LineReaderOptions options) {
  LineReader reader(Source::kMemory, std::move(name), options);
  reader.memory_ = std::move(data);
  return reader;
}

std::size_t LineReader::read_raw(char* dst, std::size_t size) {
  switch (source_) {
    case Source::kMemory: {
      std::size_t n = std::min(size, memory_.size() - memory_pos_);
      std::memcpy(dst, memory_.data() + memory_pos_, n);
      memory_pos_ += n;
      return n;
    }
    case Source::kFile: {
      // Stop after a newline so an interactive FILE* stream does not wait for a full buffer.
      std::size_t n = 0;
      while (n < size) {
        int c = getc(file_);
        if (c == EOF) {
          if (std::ferror(file_)) throw_io_error(name_, "read failed", errno ? errno : EIO);
          break;
        }
        dst[n++] = static_cast<char>(c);
        if (c == '\n') break;
      }
      return n;
    }
    case Source::kFd:
      break;
  }
  for (;;) {
    ssize_t n = ::read(fd_, dst, size);
    if (n >= 0) return static_cast<std::size_t>(n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {  // inherited non-blocking stdin: wait for data
      pollfd pfd{fd_, POLLIN, 0};
      ::poll(&pfd, 1, -1);
      continue;
    }
    throw_io_error(name_, "read failed", errno);
  }
}

RawInput LineReader::raw_input() {
  return {[this](char* dst, std::size_t size) { return read_raw(dst, size); },
          [this] {
            if (source_ != Source::kFd) return true;  // memory never blocks; FILE* buffers are opaque
            pollfd pfd{fd_, POLLIN, 0};
            while (::poll(&pfd, 1, 0) < 0) {
              if (errno != EINTR) return true;  // let read() report the problem
            }
            return pfd.revents != 0;
          }};
}

void LineReader::check_encoding() { decoder_.start(raw_input()); }

bool LineReader::fill() {
  if (eof_) return false;
  std::size_t n = decoder_.read(buffer_.data(), buffer_.size(), raw_input());
  if (n == 0) {
    eof_ = true;
    return false;
  }
  pos_ = 0;
  end_ = n;
  return true;
}

void LineReader::throw_too_long() const {
  throw IoError(printable_path(name_) + ": line " + std::to_string(lines_read_ + 1) +
                " is longer than the maximum of " + std::to_string(options_.max_line_bytes) + " bytes");
}

void LineReader::emit(std::string_view raw, LineEnding ending, Line& line, bool continues) {
  if (raw.size() > options_.max_line_bytes) throw_too_long();
  bytes_read_ += raw.size() + line_ending_chars(ending).size();
  if (lines_read_ == 0 && !in_long_line_ && options_.strip_bom && raw.substr(0, 3) == "\xEF\xBB\xBF") {
    raw.remove_prefix(3);
    had_bom_ = true;
  }
  line.text = core::sanitize_utf8(raw);
  line.ending = ending;
  line.continues = continues;
  in_long_line_ = continues;
  if (!continues) ++lines_read_;
}

void LineReader::emit_piece(Line& line) {
  const std::size_t cut = std::clamp<std::size_t>(options_.cut_long_line(partial_, options_.max_line_bytes),
                                                  1, std::min(options_.max_line_bytes, partial_.size()));
  emit(std::string_view(partial_).substr(0, cut), LineEnding::kNone, line, true);
  partial_.erase(0, cut);
}

void LineReader::set_long_lines(std::size_t max_line_bytes, LongLineCutter cut) {
  options_.max_line_bytes = max_line_bytes;
  options_.cut_long_line = std::move(cut);
}

// The first CR or LF in [start, start + size), or nullptr.
static const char* find_line_end(const char* start, std::size_t size) {
  const auto* lf = static_cast<const char*>(std::memchr(start, '\n', size));
  const std::size_t before_lf = lf ? static_cast<std::size_t>(lf - start) : size;
  const auto* cr = static_cast<const char*>(std::memchr(start, '\r', before_lf));
  return cr ? cr : lf;
}

bool LineReader::next(Line& line) {
  if (!in_long_line_) partial_.clear();
  for (;;) {
    if (pos_ == end_ && !fill()) {
      if (pending_cr_) {
        pending_cr_ = false;
        emit(partial_, LineEnding::kCr, line);
        return true;
      }
      if (partial_.empty() && !in_long_line_) return false;
      if (options_.cut_long_line && partial_.size() > options_.max_line_bytes) {
        emit_piece(line);
        return true;
      }
      emit(partial_, LineEnding::kNone, line);
      return true;
    }
    if (pending_cr_) {  // the previous chunk ended with a CR: this chunk's first byte decides CR or CRLF
      pending_cr_ = false;
      const bool lf = buffer_[pos_] == '\n';
      if (lf) ++pos_;
      emit(partial_, lf ? LineEnding::kCrLf : LineEnding::kCr, line);
      return true;
    }
    const char* start = buffer_.data() + pos_;
    const char* line_end = find_line_end(start, end_ - pos_);
    std::size_t len = line_end ? static_cast<std::size_t>(line_end - start) : end_ - pos_;
    if (options_.cut_long_line && partial_.size() + len > options_.max_line_bytes) {
      partial_.append(start, len);  // up to the line's end, which stays in the buffer for a later call
      pos_ += len;
      emit_piece(line);
      return true;
    }
    if (partial_.size() + len > options_.max_line_bytes) throw_too_long();
    if (!line_end) {
      partial_.append(start, len);
      pos_ = end_;
      continue;
    }
    LineEnding ending = LineEnding::kLf;
    std::size_t ending_size = 1;
    if (*line_end == '\r') {
      if (line_end + 1 == buffer_.data() + end_) {  // LF may come in the next chunk
        partial_.append(start, len);
        pos_ = end_;
        pending_cr_ = true;
        continue;
      }
      ending = line_end[1] == '\n' ? LineEnding::kCrLf : LineEnding::kCr;
      ending_size = ending == LineEnding::kCrLf ? 2 : 1;
    }
    pos_ += len + ending_size;
    std::string_view raw(start, len);  // common case: the whole line is inside this chunk
    if (!partial_.empty()) raw = partial_.append(start, len);
    emit(raw, ending, line);
    // A past giant line should not pin its memory for the rest of the input.
    if (partial_.capacity() > (std::size_t{1} << 20)) std::string().swap(partial_);
    return true;
  }
}

bool LineReader::next_line_ready() {
  if (eof_ || source_ != Source::kFd || decoder_.has_buffered()) return true;
  // A line ending with a byte after it (a CR needs one to tell CR from CRLF) is a whole line.
  const char* line_end = find_line_end(buffer_.data() + pos_, end_ - pos_);
  if (line_end != nullptr && line_end + 1 < buffer_.data() + end_) return true;
  if (line_end != nullptr && *line_end == '\n') return true;
  return raw_input().ready();  // data, end of file (POLLHUP) or an error read() will report
}

std::vector<Line> LineReader::next_batch(std::size_t max_lines, std::size_t max_bytes) {
  if (max_lines == 0) throw std::invalid_argument("LineReader::next_batch: max_lines must be >= 1");
  std::vector<Line> batch;
  std::size_t bytes = 0;
  Line line;
  while (batch.size() < max_lines && bytes < max_bytes &&
         (batch.empty() || !options_.stop_batch_when_idle || next_line_ready()) && next(line)) {
    bytes += line.text.size();
    batch.push_back(std::move(line));
  }
  return batch;
}

}  // namespace cli
