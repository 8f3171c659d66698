#include "curl_library.hpp"

#include <dlfcn.h>

#include <mutex>

namespace canitrun::net {
namespace {

// libcurl's ABI name since 7.16 (Debian's libcurl4 and libcurl3-gnutls both carry it).
constexpr const char* kSoname = "libcurl.so.4";

template <typename F>
bool bind_symbol(void* handle, const char* name, F& slot, std::string& why) {
    void* symbol = dlsym(handle, name);
    if (symbol == nullptr) {
        why = std::string(kSoname) + " has no " + name;
        return false;
    }
    // POSIX guarantees a data pointer from dlsym converts to the function's type.
    slot = reinterpret_cast<F>(symbol);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast)
    return true;
}

bool bind_all(void* h, CurlLibrary& l, std::string& why) {
    return bind_symbol(h, "curl_global_init", l.global_init, why) &&
           bind_symbol(h, "curl_easy_init", l.easy_init, why) &&
           bind_symbol(h, "curl_easy_setopt", l.easy_setopt, why) &&
           bind_symbol(h, "curl_easy_perform", l.easy_perform, why) &&
           bind_symbol(h, "curl_easy_getinfo", l.easy_getinfo, why) &&
           bind_symbol(h, "curl_easy_cleanup", l.easy_cleanup, why) &&
           bind_symbol(h, "curl_easy_strerror", l.easy_strerror, why) &&
           bind_symbol(h, "curl_slist_append", l.slist_append, why) &&
           bind_symbol(h, "curl_slist_free_all", l.slist_free_all, why);
}

struct Loaded {
    CurlLibrary library;
    std::string why;
    bool ok = false;
};

Loaded load() {
    Loaded loaded;
    // Never closed: libcurl keeps global state (TLS, resolver threads) for the whole process.
    void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* error = dlerror();
        loaded.why = std::string("cannot load ") + kSoname + " (" +
                     (error != nullptr ? error : "not found") + "); install libcurl4";
        return loaded;
    }
    if (!bind_all(handle, loaded.library, loaded.why)) return loaded;
    if (loaded.library.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
        loaded.why = "libcurl failed to initialise";
        return loaded;
    }
    loaded.ok = true;
    return loaded;
}

}  // namespace

const CurlLibrary* curl_library(std::string& why) {
    static std::once_flag once;
    static Loaded loaded;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
    std::call_once(once, [] { loaded = load(); });
    why = loaded.why;
    return loaded.ok ? &loaded.library : nullptr;
}

}  // namespace canitrun::net
