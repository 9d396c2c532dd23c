#include "catalog_update.h"

#include "atomic_write.h"
#include "text_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <set>

#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace {

std::string ioReason() {
    return std::strerror(errno);
}

// mkdir -p for the update's directory, 0700 as XDG asks of the directories it creates.
Result<bool> makeDirectories(const std::string& dir) {
    std::string partial;
    std::size_t from = 0;
    while (from <= dir.size()) {
        const std::size_t slash = dir.find('/', from);
        partial = dir.substr(0, slash == std::string::npos ? dir.size() : slash);
        from = slash == std::string::npos ? dir.size() + 1 : slash + 1;
        if (partial.empty()) continue;
        if (::mkdir(partial.c_str(), 0700) == 0 || errno == EEXIST) continue;
        return makeError(ErrorCode::IoError, "cannot create '" + partial + "': " + ioReason());
    }
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return makeError(ErrorCode::IoError, "'" + dir + "' is not a directory");
    return true;
}

CatalogUpdateSummary summarize(const Catalog& update, const Catalog& shipped,
                               const std::string& path) {
    CatalogUpdateSummary s;
    s.path = path;
    s.models = update.size();
    for (const CatalogEntry& e : update.entries())
        (shipped.find(e.id) ? s.replaced : s.added) += 1;
    return s;
}

// The shipped entries the update does not replace, in their order, then the update's: a
// replaced entry keeps no trace of the shipped one.
Catalog overlay(const Catalog& shipped, const Catalog& update) {
    Catalog out;
    for (const CatalogEntry& e : shipped.entries())
        if (!update.find(e.id)) out.add(e);
    for (const CatalogEntry& e : update.entries())
        out.add(e);
    return out;
}

} // namespace

std::string catalogUpdatePath() {
    // XDG Base Directory: a relative XDG_DATA_HOME is invalid and must be ignored.
    if (const char* x = std::getenv("XDG_DATA_HOME"); x && *x == '/')
        return std::string(x) + "/headroom/catalog-update.json";
    if (const char* h = std::getenv("HOME"); h && *h)
        return std::string(h) + "/.local/share/headroom/catalog-update.json";
    return {};
}

Result<CatalogUpdateSummary>
installCatalogUpdate(const std::string& text, const std::string& origin, const Catalog& shipped) {
    auto update = loadCatalog(text);
    if (!update) return asFileContentError(update.error(), "'" + origin + "'");
    if (update->size() == 0)
        return makeError(ErrorCode::ParseError,
                         "'" + origin + "': the catalog lists no models; nothing to update",
                         "`catalog --reset` goes back to the built-in catalog");
    const std::string path = catalogUpdatePath();
    if (path.empty())
        return makeError(
            ErrorCode::IoError,
            "no place to keep a catalog update: neither XDG_DATA_HOME nor HOME is set");
    if (auto ok = makeDirectories(path.substr(0, path.rfind('/'))); !ok) return ok.error();
    if (auto ok = writeFileAtomically(path, text, /*overwrite=*/true, 0644); !ok) {
        Error e = ok.error();
        // The update's own path is not the user's argument: a FIFO or directory there is a
        // file the program cannot use (exit 3), not a bad flag.
        e.code = ErrorCode::IoError;
        e.message = "the catalog update was not installed: " + e.message;
        return e;
    }
    return summarize(*update, shipped, path);
}

Result<bool> removeCatalogUpdate() {
    const std::string path = catalogUpdatePath();
    if (path.empty()) return false;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno == ENOENT) return false;
        return makeError(ErrorCode::IoError, "cannot read '" + path + "': " + ioReason());
    }
    if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
        return makeError(ErrorCode::IoError, "'" + path + "' is " + fileKindName(st.st_mode) +
                                                 ", not a catalog update; it was left as it is");
    if (::unlink(path.c_str()) != 0)
        return makeError(ErrorCode::IoError, "cannot remove '" + path + "': " + ioReason());
    return true;
}

Result<CatalogInUse> loadCatalogInUse() {
    auto shipped = loadBuiltinCatalog();
    if (!shipped) return shipped.error();
    CatalogInUse out;
    const std::string path = catalogUpdatePath();
    struct stat st {};
    if (path.empty() || (::lstat(path.c_str(), &st) != 0 && errno == ENOENT)) {
        out.catalog = std::move(*shipped);
        return out;
    }
    const std::string remedy =
        "fix or replace it with `headroom-cli catalog --update FILE`, or go back to the built-in "
        "catalog with `headroom-cli catalog --reset`";
    auto text = readRegularTextFile(path);
    if (!text) {
        Error e = text.error();
        e.message = "the catalog update cannot be read: " + e.message;
        e.details = remedy;
        return e;
    }
    auto update = loadCatalog(*text);
    if (!update) {
        Error e = asFileContentError(update.error(), "the catalog update '" + path + "'");
        e.details = (e.details.empty() ? "" : e.details + "; ") + remedy;
        return e;
    }
    out.update = summarize(*update, *shipped, path);
    out.catalog = overlay(*shipped, *update);
    return out;
}

} // namespace headroom
