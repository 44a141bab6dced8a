#include "core/base/host_name.h"

#include <unistd.h>

namespace stave {

std::string hostName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return "";
  return host;
}

}  // namespace stave
