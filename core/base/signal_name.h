#pragma once
// The name of a POSIX signal for messages ("SIGKILL", "SIGSEGV"; "signal 42" for one without
// a name here): one spelling for the launcher's events and the studio's outcome texts.
#include <string>

namespace stave {

std::string signalName(int sig);

}  // namespace stave
