#include "canitrun/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace canitrun {
namespace {

std::string kind_phrase(mode_t mode) {
    if (S_ISREG(mode)) return "";
    if (S_ISDIR(mode)) return "is a directory, not a file";
    if (S_ISFIFO(mode)) return "is a named pipe, not a file";
    if (S_ISSOCK(mode)) return "is a socket, not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "is a device, not a file";
    return "is not a regular file";
}

std::string mib_text(std::uint64_t bytes) {
    return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

std::string not_a_file_reason(const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return std::strerror(errno);
    return kind_phrase(st.st_mode);
}

Result<OpenFile> open_regular_file(const std::string& path) {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever. It has
    // no effect on reads from a regular file, the only kind let through.
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        return fail(ErrorKind::io, "cannot open " + path + ": " + std::strerror(errno),
                    "check the path");
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        return fail(ErrorKind::io, "cannot read " + path + ": " + why);
    }
    if (const std::string why = kind_phrase(st.st_mode); !why.empty()) {
        ::close(fd);
        return fail(ErrorKind::io, path + " " + why, "give the path of a regular file");
    }
    return OpenFile{fd, static_cast<std::uint64_t>(st.st_size)};
}

Result<std::string> read_bounded_file(const std::string& path, std::uint64_t max_bytes,
                                      std::string_view what) {
    CANITRUN_TRY_ASSIGN(auto file, open_regular_file(path));
    const auto too_large = [&] {
        ::close(file.fd);
        return fail(ErrorKind::bad_input,
                    path + " is larger than " + mib_text(max_bytes) + ", too large for a " +
                        std::string(what),
                    "check that this is the right file");
    };
    if (file.size > max_bytes) return too_large();
    // Read to the cap + 1 byte: /proc and sysfs files report size 0 or 4096 whatever they hold.
    std::string text;
    char buffer[65536];
    ssize_t n = 0;
    while ((n = ::read(file.fd, buffer, sizeof buffer)) != 0) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        if (text.size() + static_cast<std::size_t>(n) > max_bytes) return too_large();
        text.append(buffer, static_cast<std::size_t>(n));
    }
    const int read_errno = errno;
    ::close(file.fd);
    if (n < 0) return fail(ErrorKind::io, "cannot read " + path + ": " + std::strerror(read_errno));
    return text;
}

}  // namespace canitrun
