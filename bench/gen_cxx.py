#!/usr/bin/env python3
"""Generate the C++ file clang compiles in the clang benchmark: N functions,
each instantiating its own std::map/set/unordered_map/vector/sort/function
(about 0.8 s of clang -O2 per function, plus ~1 s of headers)."""
import sys
n=int(sys.argv[1])
print("#include <algorithm>\n#include <map>\n#include <unordered_map>\n#include <vector>\n#include <string>\n#include <functional>\n#include <memory>\n#include <sstream>\n#include <set>")
for i in range(n):
    print(f"""struct S{i} {{ int a; double b; std::string s; bool operator<(const S{i}& o) const {{ return a < o.a || (a == o.a && s < o.s); }} }};
std::string f{i}(int k) {{
  std::vector<S{i}> v; std::map<std::string, S{i}> m; std::unordered_map<int, std::shared_ptr<S{i}>> u; std::set<S{i}> st;
  for (int j = 0; j < k; j++) {{ S{i} x{{j * {i+1}, j / 3.0, std::to_string(j)}}; v.push_back(x); m[x.s] = x; u[j] = std::make_shared<S{i}>(x); st.insert(x); }}
  std::sort(v.begin(), v.end(), [](const S{i}& p, const S{i}& q) {{ return q < p; }});
  std::function<int(const S{i}&)> g = [k](const S{i}& p) {{ return p.a % (k + {i+1}); }};
  std::ostringstream os; for (auto& p : m) os << p.first << g(p.second) << u.size() << st.size();
  return os.str();
}}""")
print("int main(int c, char**) { std::string r; " + " ".join(f"r += f{i}(c);" for i in range(n)) + " return r.size(); }")
