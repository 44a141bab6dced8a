#include "core/studio/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/base/bounded_read.h"
#include "core/studio/engine_text.h"

namespace stave::studio {

bool openRegularFile(QFile* f, const QString& path, QString* error) {
  auto fail = [&](const QString& why) {
    if (error) *error = QStringLiteral("%1: %2").arg(path, why);
    return false;
  };
  const QByteArray local = QFile::encodeName(path);
  const int fd = ::open(local.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return fail(QStringLiteral("cannot open: %1").arg(QString::fromLocal8Bit(std::strerror(errno))));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(QStringLiteral("cannot stat: %1").arg(QString::fromLocal8Bit(std::strerror(err))));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(S_ISDIR(st.st_mode)    ? QStringLiteral("is a folder, not a file")
                : S_ISFIFO(st.st_mode) ? QStringLiteral("is a FIFO (named pipe), not a regular file; not read")
                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)
                    ? QStringLiteral("is a device, not a regular file; not read")
                    : QStringLiteral("is not a regular file; not read"));
  }
  f->setFileName(path);
  if (!f->open(fd, QIODevice::ReadOnly, QFileDevice::AutoCloseHandle)) {
    ::close(fd);
    return fail(QStringLiteral("cannot be read (%1)").arg(f->errorString()));
  }
  return true;
}

QByteArray readRegularFile(const QString& path, qint64 maxBytes, QString* error) {
  auto text = readFileCapped(QFile::encodeName(path).toStdString(), static_cast<size_t>(maxBytes));
  if (!text) {
    if (error) *error = errorsText(text.errors());
    return {};
  }
  return QByteArray(text->data(), static_cast<qsizetype>(text->size()));
}

}  // namespace stave::studio
