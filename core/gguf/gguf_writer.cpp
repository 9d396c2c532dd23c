#include "gguf/gguf_writer.h"

#include "gguf/gguf_wire.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace fs = std::filesystem;

void GgufWriter::set(const std::string& key, GgufValue value) {
    for (auto& [k, v] : kv_) {
        if (k == key) {
            v = std::move(value);
            return;
        }
    }
    kv_.emplace_back(key, std::move(value));
}

void GgufWriter::remove(const std::string& key) {
    std::erase_if(kv_, [&](const auto& kv) { return kv.first == key; });
}

void GgufWriter::addTensor(std::string name, std::vector<std::uint64_t> dims, GgmlType type) {
    addTensor(GgufTensorSpec{std::move(name), std::move(dims), type, std::nullopt});
}

void GgufWriter::addTensor(GgufTensorSpec spec) {
    tensors_.push_back(std::move(spec));
}

std::uint32_t GgufWriter::alignment() const {
    for (const auto& [k, v] : kv_) {
        if (k == "general.alignment" && v.type() == GgufValueType::UInt32 && *v.asUInt() != 0)
            return static_cast<std::uint32_t>(*v.asUInt());
    }
    return kGgufDefaultAlignment;
}

Bytes GgufWriter::tensorBytes(const GgufTensorSpec& t) {
    if (t.dims.empty()) return ggmlRowBytes(t.type, 1);
    Bytes rows = 1;
    for (std::size_t i = 1; i < t.dims.size(); ++i)
        rows = satMul(rows, t.dims[i]);
    return satMul(ggmlRowBytes(t.type, t.dims[0]), rows);
}

std::uint64_t GgufWriter::tensorOffset(std::size_t i) const {
    const Bytes align = alignment();
    Bytes off = 0;
    for (std::size_t k = 0; k < tensors_.size(); ++k) {
        if (k == i) return tensors_[k].offset_override.value_or(off);
        off = satAdd(off, padTo(tensorBytes(tensors_[k]), align));
    }
    return off;
}

void encodeGgufValue(std::string& out, const GgufValue& value) {
    wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(value.type()));
    switch (value.type()) {
    case GgufValueType::UInt8:
        wire::put<std::uint8_t>(out, static_cast<std::uint8_t>(*value.asUInt()));
        break;
    case GgufValueType::Int8:
        wire::put<std::int8_t>(out, static_cast<std::int8_t>(*value.asInt()));
        break;
    case GgufValueType::UInt16:
        wire::put<std::uint16_t>(out, static_cast<std::uint16_t>(*value.asUInt()));
        break;
    case GgufValueType::Int16:
        wire::put<std::int16_t>(out, static_cast<std::int16_t>(*value.asInt()));
        break;
    case GgufValueType::UInt32:
        wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(*value.asUInt()));
        break;
    case GgufValueType::Int32:
        wire::put<std::int32_t>(out, static_cast<std::int32_t>(*value.asInt()));
        break;
    case GgufValueType::UInt64:
        wire::put<std::uint64_t>(out, *value.asUInt());
        break;
    case GgufValueType::Int64:
        wire::put<std::int64_t>(out, *value.asInt());
        break;
    case GgufValueType::Float32:
        wire::put<float>(out, static_cast<float>(*value.asFloat()));
        break;
    case GgufValueType::Float64:
        wire::put<double>(out, *value.asFloat());
        break;
    case GgufValueType::Bool:
        wire::put<std::uint8_t>(out, *value.asBool() ? 1 : 0);
        break;
    case GgufValueType::String:
        wire::putString(out, *value.asString());
        break;
    case GgufValueType::Array: {
        const GgufArray& a = *value.asArray();
        wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(a.elementType()));
        wire::put<std::uint64_t>(out, a.size());
        out.append(a.raw());
        break;
    }
    }
}

std::string GgufWriter::header() const {
    std::string out;
    out.append("GGUF", 4);
    wire::put<std::uint32_t>(out, version_);
    wire::put<std::uint64_t>(out, tensors_.size());
    wire::put<std::uint64_t>(out, kv_.size());
    for (const auto& [k, v] : kv_) {
        wire::putString(out, k);
        encodeGgufValue(out, v);
    }
    for (std::size_t i = 0; i < tensors_.size(); ++i) {
        const auto& t = tensors_[i];
        wire::putString(out, t.name);
        wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(t.dims.size()));
        for (std::uint64_t d : t.dims)
            wire::put<std::uint64_t>(out, d);
        wire::put<std::uint32_t>(out, static_cast<std::uint32_t>(t.type));
        wire::put<std::uint64_t>(out, tensorOffset(i));
    }
    if (!tensors_.empty()) out.resize(padTo(out.size(), alignment()), '\0');
    return out;
}

Bytes GgufWriter::dataOffset() const {
    return header().size();
}

Bytes GgufWriter::fileSize() const {
    const Bytes align = alignment();
    Bytes data = 0;
    for (const auto& t : tensors_)
        data = satAdd(data, padTo(tensorBytes(t), align));
    return satAdd(dataOffset(), data);
}

Result<Bytes> GgufWriter::write(const std::string& path, bool overwrite) const {
    std::error_code ec;
    if (!overwrite && fs::exists(path, ec))
        return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists");
    const std::string head = header();
    Bytes total = head.size();
    {
        const Bytes align = alignment();
        for (const auto& t : tensors_)
            total = satAdd(total, padTo(tensorBytes(t), align));
    }
    if (total > static_cast<Bytes>(INT64_MAX))
        return makeError(ErrorCode::InvalidArgument,
                         "'" + path + "' would be larger than a file can be");

    const fs::path target(path);
    const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
    std::string tmpl = (dir / ("." + target.filename().string() + ".XXXXXX")).string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0)
        return makeError(ErrorCode::IoError, "cannot create a temporary file next to '" + path +
                                                 "': " + std::strerror(errno));
    auto fail = [&](const std::string& what) {
        const std::string why = std::strerror(errno);
        ::close(fd);
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::IoError, what + " '" + path + "': " + why);
    };
    std::size_t done = 0;
    while (done < head.size()) {
        const ssize_t n = ::write(fd, head.data() + done, head.size() - done);
        if (n < 0) {
            if (errno == EINTR) continue;
            return fail("cannot write");
        }
        done += static_cast<std::size_t>(n);
    }
    // The data section stays a hole: readers of headers never look at it, and sparse files let
    // tests describe 80B models without using disk.
    if (::ftruncate(fd, static_cast<off_t>(total)) != 0) return fail("cannot size");
    if (::fsync(fd) != 0) return fail("cannot flush");
    if (::close(fd) != 0) {
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::IoError,
                         "cannot close '" + path + "': " + std::strerror(errno));
    }
    ::chmod(tmpl.c_str(), 0644);
    if (!overwrite && fs::exists(path, ec)) {
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::InvalidArgument, "'" + path + "' already exists");
    }
    if (std::rename(tmpl.c_str(), path.c_str()) != 0) {
        const std::string why = std::strerror(errno);
        ::unlink(tmpl.c_str());
        return makeError(ErrorCode::IoError, "cannot rename into '" + path + "': " + why);
    }
    return total;
}

} // namespace headroom
