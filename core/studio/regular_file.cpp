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
  // The engine's words for these (core/base/bounded_read), in the studio's language.
  if (fd < 0) return fail(engineText(Text("io.cannot_open", {{"reason", std::strerror(errno)}})));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return fail(engineText(Text("io.cannot_stat", {{"reason", std::strerror(err)}})));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return fail(engineText(Text(S_ISDIR(st.st_mode)                          ? "io.is_folder"
                                : S_ISFIFO(st.st_mode)                       ? "io.fifo"
                                : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "io.device"
                                                                             : "io.not_regular")));
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
