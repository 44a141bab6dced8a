#include "core/studio/engine_text.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLocale>
#include <QStringList>
#include <nlohmann/json.hpp>

#include "core/telemetry/events.h"

namespace stave::studio {

QString engineTemplate(std::string_view id) {
  const MessageDef* def = findMessage(id);
  if (!def) return {};
  // The catalog's templates live as long as the program (string literals).
  return QCoreApplication::translate("stave::engine", std::string(def->english).c_str());
}

QString engineText(const Text& text) {
  // A size for a person in the UI's locale ("11.5 MiB"), where the English counts bytes.
  if (text.id == "size.bytes" || text.id == "size.number") {
    for (const auto& a : text.args) {
      bool ok = false;
      const qint64 bytes = QString::fromStdString(a.value).toLongLong(&ok);
      if (a.name == "bytes" && ok) return QLocale().formattedDataSize(bytes, 1);
    }
  }
  const QString tmpl = engineTemplate(text.id);
  if (tmpl.isEmpty()) return {};
  bool ok = true;
  const std::string filled =
      fillTemplate(tmpl.toStdString(), [&](const std::string& name) -> std::string {
        for (const auto& a : text.args) {
          if (a.name != name) continue;
          if (a.text.empty()) return a.value;
          const QString nested = engineText(a.text);
          ok = ok && !nested.isEmpty();
          return nested.toStdString();
        }
        return "{" + name + "}";
      });
  return ok ? QString::fromStdString(filled) : QString();
}

QString engineText(const TextParts& parts) {
  QString out;
  for (const auto& t : parts) {
    const QString s = engineText(t);
    if (s.isEmpty()) return {};
    out += s;
  }
  return out;
}

QString engineText(const TextParts& parts, const std::string& english) {
  const QString translated = engineText(parts);
  return translated.isEmpty() ? QString::fromStdString(english) : translated;
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
