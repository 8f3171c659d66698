#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ostream>

#include "app.hpp"

namespace canitrun::cli {

int write_answer(int fd, std::string_view text, std::ostream& err, int code) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            // write(2) returning 0 for a non-empty buffer is a short write with no errno.
            const int why = n < 0 ? errno : EIO;
            if (why != EPIPE) {
                err << "canitrun: error: cannot write the answer to stdout: " << std::strerror(why)
                    << " (" << done << " of " << text.size()
                    << " bytes written); check the disk or the pipe it goes to\n";
            }
            return kExitOutput;
        }
        done += static_cast<std::size_t>(n);
    }
    return code;
}

}  // namespace canitrun::cli
