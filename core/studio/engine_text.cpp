#include "core/studio/engine_text.h"

#include <QCoreApplication>

namespace stave::studio {

QString engineTemplate(std::string_view id) {
  const MessageDef* def = findMessage(id);
  if (!def) return {};
  // The catalog's templates live as long as the program (string literals).
  return QCoreApplication::translate("stave::engine", std::string(def->english).c_str());
}

QString engineText(const Text& text) {
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

QString errorText(const Error& e) {
  Error where = e;
  where.message.clear();
  return QString::fromStdString(where.toString()) + engineText(e.text, e.message);
}

}  // namespace stave::studio
