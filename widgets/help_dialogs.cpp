#include "widgets/help_dialogs.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QShortcut>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <functional>
#include <qcustomplot.h>
#include <sqlite3.h>

namespace stave::widgets {
namespace {
constexpr const char* kDocsRoot = ":/docs/";

QString plain(QString text) {
  text.remove(QLatin1Char('&'));  // mnemonics
  return text;
}
}  // namespace

QString aboutText() {
  return QObject::tr(
             "<h2>Stave %1</h2>"
             "<p>Trains YOLO object detectors fast on one to many GPUs, and shows why a run is "
             "slow.</p>"
             "<table>"
             "<tr><td>Qt</td><td>%2 (built with %3)</td></tr>"
             "<tr><td>LibTorch (the engine, stave-train)</td><td>%4</td></tr>"
             "<tr><td>QCustomPlot</td><td>%5</td></tr>"
             "<tr><td>SQLite</td><td>%6</td></tr>"
             "</table>")
      .arg(QStringLiteral(STAVE_VERSION), QString::fromLatin1(qVersion()),
           QStringLiteral(QT_VERSION_STR), QStringLiteral(STAVE_TORCH_VERSION),
           QStringLiteral(QCUSTOMPLOT_VERSION_STR), QString::fromLatin1(sqlite3_libversion()));
}

QList<QPair<QString, QString>> shortcutList(const QWidget* window) {
  QList<QPair<QString, QString>> out;
  std::function<void(const QMenu*, const QString&)> walk = [&](const QMenu* menu,
                                                               const QString& path) {
    for (const QAction* a : menu->actions()) {
      if (a->isSeparator()) continue;
      const QString where = path + QStringLiteral(" ▸ ") + plain(a->text());
      if (a->menu()) {
        walk(a->menu(), where);
        continue;
      }
      for (const QKeySequence& k : a->shortcuts())
        out.append({where, k.toString(QKeySequence::NativeText)});
    }
  };
  for (const QMenuBar* bar : window->findChildren<QMenuBar*>())
    for (const QAction* a : bar->actions())
      if (a->menu()) walk(a->menu(), plain(a->text()));
  for (const QShortcut* s : window->findChildren<QShortcut*>())
    if (!s->whatsThis().isEmpty() && !s->key().isEmpty())
      out.append({s->whatsThis(), s->key().toString(QKeySequence::NativeText)});
  return out;
}

DocsDialog::DocsDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Stave Documentation"));
  setObjectName(QStringLiteral("docsDialog"));
  auto* layout = new QHBoxLayout(this);
  m_list = new QListWidget(this);
  m_list->setObjectName(QStringLiteral("docsPages"));
  m_list->setMaximumWidth(220);
  m_browser = new QTextBrowser(this);
  m_browser->setObjectName(QStringLiteral("docsBrowser"));
  m_browser->setOpenExternalLinks(true);
  m_browser->setSearchPaths({QString::fromLatin1(kDocsRoot)});
  layout->addWidget(m_list);
  layout->addWidget(m_browser, 1);
  // Each page by its title (up to a colon: "The doctor", not "…: why a run is slow", which the
  // tooltip and the page say), in the order of its subject (a leading "The " left out: "The
  // doctor" beside "Distributed training"); the file name travels in the item's data.
  m_list->setWordWrap(true);
  QList<QPair<QString, QString>> titled;  // (title, page)
  for (const QString& page : pages()) titled.append({pageTitle(page), page});
  auto subject = [](const QString& title) {
    return title.startsWith(QLatin1String("The ")) ? title.mid(4) : title;
  };
  std::sort(titled.begin(), titled.end(), [&](const auto& a, const auto& b) {
    return subject(a.first).compare(subject(b.first), Qt::CaseInsensitive) < 0;
  });
  for (const auto& [title, page] : titled) {
    auto* item = new QListWidgetItem(title.section(QStringLiteral(": "), 0, 0), m_list);
    item->setData(Qt::UserRole, page);
    item->setToolTip(title);
  }
  connect(m_list, &QListWidget::currentItemChanged, this, [this](QListWidgetItem* item) {
    if (item) showPage(item->data(Qt::UserRole).toString());
  });
  // A link to another page shows it (and selects it in the list).
  connect(m_browser, &QTextBrowser::sourceChanged, this,
          [this](const QUrl& url) { selectPage(QFileInfo(url.path()).fileName()); });
  resize(980, 700);
  showPage(QStringLiteral("studio.md"));
}

QStringList DocsDialog::pages() const {
  return QDir(QString::fromLatin1(kDocsRoot)).entryList({QStringLiteral("*.md")}, QDir::Files,
                                                         QDir::Name);
}

bool DocsDialog::showPage(const QString& page) {
  const QString path = QString::fromLatin1(kDocsRoot) + page;
  if (!QFileInfo::exists(path)) return false;
  m_browser->setSource(QUrl(QStringLiteral("qrc") + path), QTextDocument::MarkdownResource);
  selectPage(page);
  return true;
}

void DocsDialog::selectPage(const QString& page) {
  for (int i = 0; i < m_list->count(); ++i) {
    QListWidgetItem* item = m_list->item(i);
    if (item->data(Qt::UserRole).toString() != page || m_list->currentItem() == item) continue;
    QSignalBlocker block(m_list);
    m_list->setCurrentItem(item);
  }
}

QString DocsDialog::pageTitle(const QString& page) {
  // The page's first heading ("# The studio around a run: …"): its title as written.
  QFile file(QString::fromLatin1(kDocsRoot) + page);
  if (file.open(QIODevice::ReadOnly | QIODevice::Text)) {
    while (!file.atEnd()) {
      const QString line = QString::fromUtf8(file.readLine()).trimmed();
      if (line.startsWith(QLatin1String("# "))) return line.mid(2).trimmed();
    }
  }
  return QFileInfo(page).completeBaseName();
}

ShortcutsDialog::ShortcutsDialog(const QWidget* window, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Keyboard Shortcuts"));
  setObjectName(QStringLiteral("shortcutsDialog"));
  auto* layout = new QVBoxLayout(this);
  const auto list = shortcutList(window);
  auto* table = new QTableWidget(int(list.size()), 2, this);
  table->setObjectName(QStringLiteral("shortcutsTable"));
  table->setHorizontalHeaderLabels({tr("Command"), tr("Keys")});
  table->verticalHeader()->hide();
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
  for (int i = 0; i < list.size(); ++i) {
    table->setItem(i, 0, new QTableWidgetItem(list[i].first));
    table->setItem(i, 1, new QTableWidgetItem(list[i].second));
  }
  layout->addWidget(table);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  resize(520, 480);
}

}  // namespace stave::widgets
