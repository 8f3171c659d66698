#pragma once
// libcurl, opened on the first HTTP request rather than linked: linking it makes the loader map
// and relocate libcurl and its ~30 libraries (TLS, HTTP/2, IDN, LDAP, Kerberos) at every start,
// which cost ~9 ms a process on the reference VM, where a whole query should take under 5 ms.
// Only the commands that read a remote model pay for it now.

#include <curl/curl.h>

#include <string>

namespace canitrun::net {

// The entry points canitrun calls, resolved from the loaded library.
struct CurlLibrary {
    CURLcode (*global_init)(long flags) = nullptr;
    CURL* (*easy_init)() = nullptr;
    CURLcode (*easy_setopt)(CURL* curl, CURLoption option, ...) = nullptr;
    CURLcode (*easy_perform)(CURL* curl) = nullptr;
    CURLcode (*easy_getinfo)(CURL* curl, CURLINFO info, ...) = nullptr;
    void (*easy_cleanup)(CURL* curl) = nullptr;
    const char* (*easy_strerror)(CURLcode code) = nullptr;
    curl_slist* (*slist_append)(curl_slist* list, const char* text) = nullptr;
    void (*slist_free_all)(curl_slist* list) = nullptr;
};

// The library, opened and initialised once per process; nullptr when it cannot be loaded, with
// the reason in `why` (the same reason on every call).
const CurlLibrary* curl_library(std::string& why);

}  // namespace canitrun::net
