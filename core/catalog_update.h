// A catalog the user refreshed: `headroom-cli catalog --update FILE|URL` (and the window's
// File ▸ Update Catalog…) installs a newer catalog document beside the shipped one, without
// waiting for a new release. The shipped catalog stays as it is; the update is an overlay: its
// entries replace the shipped ones with the same id and add the rest. So a later Headroom's new
// built-in models still show, and an update that only fixes one model's sizes can be one entry.
//
// Where it lives: $XDG_DATA_HOME/headroom/catalog-update.json, else
// ~/.local/share/headroom/catalog-update.json (XDG Base Directory: data the user chose to keep).
//
// The rules, and why:
// - An update is checked whole before anything is written: the document must load strictly
//   (every entry valid, every id unique) under the schema this Headroom reads. A newer schema is
//   refused with a message saying so. So a truncated download or a typo never reaches the
//   planner, and the catalog in use stays the one before.
// - It is written with writeFileAtomically(): a reader sees the old update or the new one, never
//   half; a directory, FIFO or device at the path is refused, a link is replaced, not followed.
// - An update file that stops loading later (edited by hand, a disk error) is an error naming it
//   and the way back (`catalog --reset`), never a silent fall back to the shipped catalog: the
//   user asked for the update's numbers.
#pragma once

#include "catalog.h"
#include "result.h"

#include <cstddef>
#include <string>

namespace headroom {

// "" when neither XDG_DATA_HOME (absolute) nor HOME is set.
std::string catalogUpdatePath();

struct CatalogUpdateSummary {
    std::string path;       // the update file ("" when none is installed)
    std::size_t models = 0; // entries in the update
    std::size_t added = 0;  // ids the shipped catalog lacks
    std::size_t replaced = 0;
};

// The shipped catalog with the installed update laid over it.
struct CatalogInUse {
    Catalog catalog;
    CatalogUpdateSummary update; // path "" when the shipped catalog is used alone
};

// Checks `text` as a whole catalog document against `shipped` and, when it loads, writes it as
// the update (atomically, replacing the one before). `origin` (a path or URL) names the document
// in every error. Errors: the loader's (ParseError, InvalidArgument naming the entry and field,
// Unsupported for another or a newer schema), all with `origin` in front; IoError when there is
// no place to keep it or the write fails — the update in use is then unchanged.
Result<CatalogUpdateSummary>
installCatalogUpdate(const std::string& text, const std::string& origin, const Catalog& shipped);

// Removes the installed update (true) or finds none (false); IoError when it cannot be removed,
// or when the path holds something that is not a regular file or link (left as it is).
Result<bool> removeCatalogUpdate();

// The catalog every command and the window plan from: loadBuiltinCatalog(), then the update
// when one is installed. An installed update that does not load is an error naming the file and
// `catalog --reset`.
Result<CatalogInUse> loadCatalogInUse();

} // namespace headroom
