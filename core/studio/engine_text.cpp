#include "core/studio/engine_text.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QStringList>
#include <nlohmann/json.hpp>

#include <optional>

#include "core/telemetry/events.h"

namespace stave::studio {

QString engineTemplate(std::string_view id) {
  const MessageDef* def = findMessage(id);
  if (!def) return {};
  // The catalog's templates live as long as the program (string literals).
  return QCoreApplication::translate("stave::engine", std::string(def->english).c_str());
}

namespace {

// The message in the UI language; nullopt when an id (its own or a nested one) is not in this
// studio's catalog. An empty message (a "plain" argument left empty) is a message all the same.
std::optional<QString> translated(const Text& text);

std::optional<QString> translated(const TextParts& parts) {
  QString out;
  for (const auto& t : parts) {
    const auto s = translated(t);
    if (!s) return std::nullopt;
    out += *s;
  }
  return out;
}

std::optional<QString> translated(const Text& text) {
  // A size for a person in the UI's locale ("11.5 MiB"), where the English counts bytes.
  if (text.id == "size.bytes" || text.id == "size.number") {
    for (const auto& a : text.args) {
      bool ok = false;
      const qint64 bytes = QString::fromStdString(a.value).toLongLong(&ok);
      if (a.name == "bytes" && ok) return QLocale().formattedDataSize(bytes, 1);
    }
  }
  const QString tmpl = engineTemplate(text.id);
  if (tmpl.isEmpty()) return std::nullopt;
  bool ok = true;
  const std::string filled =
      fillTemplate(tmpl.toStdString(), [&](const std::string& name) -> std::string {
        for (const auto& a : text.args) {
          if (a.name != name) continue;
          if (a.text.empty()) return a.value;
          const auto nested = translated(a.text);
          ok = ok && nested.has_value();
          return nested ? nested->toStdString() : std::string();
        }
        return "{" + name + "}";
      });
  if (!ok) return std::nullopt;
  return QString::fromStdString(filled);
}

}  // namespace

QString engineText(const Text& text) {
  return translated(text).value_or(QString());
}

QString engineText(const TextParts& parts) {
  return translated(parts).value_or(QString());
}

QString engineText(const TextParts& parts, const std::string& english) {
  if (parts.empty()) return QString::fromStdString(english);
  const auto t = translated(parts);
  return t ? *t : QString::fromStdString(english);
}

QString errorsText(const std::vector<Error>& errors) {
  QStringList lines;
  for (const auto& e : errors) lines << errorText(e);
  return lines.join(QLatin1Char('\n'));
}

Error errorFromJson(const QJsonObject& j) {
  Error e;
  e.file = j.value(QStringLiteral("file")).toString().toStdString();
  e.line = j.value(QStringLiteral("line")).toInt();
  e.key = j.value(QStringLiteral("key")).toString().toStdString();
  e.message = j.value(QStringLiteral("message")).toString().toStdString();
  e.text = textFromJson(j.value(QStringLiteral("message_text")));
  return e;
}

TextParts textFromJson(const QJsonValue& value) {
  if (!value.isArray()) return {};
  const QByteArray bytes = QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact);
  const auto j = nlohmann::json::parse(bytes.constData(), bytes.constData() + bytes.size(), nullptr, false);
  if (j.is_discarded()) return {};
  auto parts = telemetry::textFromJson(j);
  return parts ? std::move(parts.value()) : TextParts{};
}

QString errorText(const Error& e) {
  Error where = e;
  where.message.clear();
  return QString::fromStdString(where.toString()) + engineText(e.text, e.message);
}

}  // namespace stave::studio
