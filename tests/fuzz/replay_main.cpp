// A fuzz target's inputs run as a regular test, in every build (no libFuzzer needed): each file
// named on the command line, or each file in each folder named, goes through
// LLVMFuzzerTestOneInput once. The corpus in tests/fuzz/corpus (seeds, and every input that once
// crashed) so runs in every CI leg, under the sanitizers where the build has them.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

void files_of(const std::string& path, std::vector<std::string>& files) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    std::fprintf(stderr, "%s: no such file or folder\n", path.c_str());
    std::exit(2);
  }
  if (!S_ISDIR(info.st_mode)) {
    files.push_back(path);
    return;
  }
  DIR* folder = ::opendir(path.c_str());
  while (const dirent* entry = folder ? ::readdir(folder) : nullptr)
    if (entry->d_name[0] != '.') files_of(path + "/" + entry->d_name, files);
  if (folder) ::closedir(folder);
}

}  // namespace

int main(int argc, char* argv[]) {
  std::vector<std::string> files;
  for (int a = 1; a < argc; ++a) files_of(argv[a], files);
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
  }
  std::printf("%zu inputs run\n", files.size());
  return files.empty() ? 1 : 0;
}
