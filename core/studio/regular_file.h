#pragma once
// Opening files the studio reads without ever waiting on them: QFile::open blocks for good on a
// FIFO with no writer, and reads a device (/dev/zero) without end. A file is opened without
// blocking (O_NONBLOCK) and refused unless it is a regular file, before a byte is read.

#include <QByteArray>
#include <QFile>
#include <QString>

namespace stave::studio {

/// Opens `path` into `f` (read-only) when it is a regular file; otherwise false, with `error`
/// naming the path and what it is (a folder, a FIFO, a device) or why it cannot be opened.
bool openRegularFile(QFile* f, const QString& path, QString* error = nullptr);

/// The whole of `path`, at most `maxBytes` (counting the bytes read); empty with `error` set
/// when it is not a regular file, cannot be read or holds more (core/base/bounded_read.h).
QByteArray readRegularFile(const QString& path, qint64 maxBytes, QString* error = nullptr);

}  // namespace stave::studio
