#pragma once
// The Help menu's windows: About (the versions of Stave and of what it is built on), the
// documentation (docs/*.md compiled into the binary, read in a browser with links between
// pages), and the keyboard shortcuts (collected from the window's menus and shortcuts, so the
// list cannot drift from what the keys do).

#include <QDialog>
#include <QList>
#include <QPair>
#include <QString>

class QListWidget;
class QTextBrowser;

namespace stave::widgets {

/// "Stave 0.x" and the versions of Qt (built with / running), QCustomPlot, SQLite and LibTorch
/// (the engine's), as rich text.
QString aboutText();

/// Every shortcut reachable in `window`: its menus' actions ("File ▸ Open…") and its
/// QShortcut objects (their whatsThis names them), sorted by where they are.
QList<QPair<QString, QString>> shortcutList(const QWidget* window);

/// Shows the compiled-in documentation: the pages on the left, the page on the right.
class DocsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit DocsDialog(QWidget* parent = nullptr);
  /// Shows `page` (a file name in docs/, e.g. "studio.md"); false when there is no such page.
  bool showPage(const QString& page);
  /// The pages there are, by file name.
  QStringList pages() const;
  /// The title the page list shows for `page` (a file name): its first "# " heading, else
  /// the file's base name.
  static QString pageTitle(const QString& page);
  QTextBrowser* browser() const { return m_browser; }

 private:
  void selectPage(const QString& page);
  QListWidget* m_list = nullptr;
  QTextBrowser* m_browser = nullptr;
};

/// The shortcuts of `window` in a table.
class ShortcutsDialog : public QDialog {
  Q_OBJECT
 public:
  explicit ShortcutsDialog(const QWidget* window, QWidget* parent = nullptr);
};

}  // namespace stave::widgets
