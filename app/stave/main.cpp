// stave: the studio. Opens the project given on the command line, if any.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include <cstdio>

#include "core/studio/project/preferences.h"
#include "widgets/main_window.h"

namespace {

/// True when Qt has somewhere to show windows: a display server, or a platform chosen
/// explicitly (offscreen, vnc, ...).
bool haveDisplay() {
  return !qEnvironmentVariableIsEmpty("DISPLAY") ||
         !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
         !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

bool wantsHelpOrVersion(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const QByteArray a(argv[i]);
    if (a == "--help" || a == "-h" || a == "--help-all" || a == "-?" || a == "--version" ||
        a == "-v")
      return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (!haveDisplay()) {
    if (wantsHelpOrVersion(argc, argv)) {
      // --help and --version need no window: answer them without a GUI platform plugin.
      QCoreApplication core(argc, argv);
      QCoreApplication::setApplicationName(QStringLiteral("Stave"));
      QCoreApplication::setApplicationVersion(QStringLiteral(STAVE_VERSION));
      QCommandLineParser parser;
      parser.setApplicationDescription(QStringLiteral("Stave studio: train YOLO detectors fast."));
      parser.addHelpOption();
      parser.addVersionOption();
      parser.addOption(QCommandLineOption(QStringLiteral("lang"),
                                          QStringLiteral("User interface language, e.g. en or "
                                                         "zh_CN (default: the one chosen in "
                                                         "Settings, else the system's)."),
                                          QStringLiteral("code")));
      parser.addPositionalArgument(QStringLiteral("project"),
                                   QStringLiteral("A .stave project file to open."));
      parser.process(core);  // prints and exits
      return 0;
    }
    std::fprintf(stderr,
                 "stave: no display ($DISPLAY and $WAYLAND_DISPLAY are unset), so the studio "
                 "cannot open a window.\n"
                 "  Train headless instead: stave-train train --project FILE.stave\n"
                 "  (or run with QT_QPA_PLATFORM=offscreen, or under Xvfb).\n");
    return 2;
  }
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("Stave"));
  QApplication::setOrganizationName(QStringLiteral("Stave"));
  QApplication::setApplicationVersion(QStringLiteral(STAVE_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Stave studio: train YOLO detectors fast."));
  parser.addHelpOption();
  parser.addVersionOption();
  QCommandLineOption langOption(QStringLiteral("lang"),
                                QStringLiteral("User interface language, e.g. en or zh_CN "
                                               "(default: the one chosen in Settings, else the "
                                               "system's)."),
                                QStringLiteral("code"));
  parser.addOption(langOption);
  parser.addPositionalArgument(QStringLiteral("project"),
                               QStringLiteral("A .stave project file to open."));
  parser.process(app);

  // English is built in; other languages come from the translations compiled into the binary.
  QTranslator translator;
  // --lang, else the language chosen in Settings, else the system's.
  const QString preferred = stave::studio::Preferences::load().language;
  const QLocale locale = parser.isSet(langOption) ? QLocale(parser.value(langOption))
                         : preferred.isEmpty()    ? QLocale::system()
                                                  : QLocale(preferred);
  if (locale.language() != QLocale::English &&
      translator.load(locale, QStringLiteral("stave"), QStringLiteral("_"),
                      QStringLiteral(":/i18n")))
    QApplication::installTranslator(&translator);
  // Qt's own texts (wizard and dialog buttons) in the same language, when Qt's translations are
  // installed.
  QTranslator qtTranslator;
  if (locale.language() != QLocale::English &&
      qtTranslator.load(locale, QStringLiteral("qtbase"), QStringLiteral("_"),
                        QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
    QApplication::installTranslator(&qtTranslator);

  stave::widgets::MainWindow window;
  // The project named on the command line, else the one open when the studio was last closed.
  if (!parser.positionalArguments().isEmpty())
    window.openProject(parser.positionalArguments().first());
  else
    window.reopenLastProject();
  window.show();
  window.fitOnScreen();  // again, now that the window manager has added its frame
  return app.exec();
}
