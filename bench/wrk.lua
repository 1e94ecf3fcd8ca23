-- Replays pre-signed requests (one per line: method, path, Authorization or "Cookie: …", body;
-- tab-separated),
-- each once, so every request to cardbazaar carries a fresh OAuth nonce. Signing happens before
-- the round, so wrk itself only sends bytes.
local reqs = {}
local n = 0
local i = 0

function init(args)
  for line in io.lines(args[1]) do
    local m, p, a, b = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t(.*)$")
    local headers = {}
    local cookie = a:match("^Cookie: (.*)$")
    if cookie then headers["Cookie"] = cookie else headers["Authorization"] = a end
    local body = nil
    if b ~= "" then
      headers["Content-Type"] = "application/xml"
      body = b
    end
    n = n + 1
    reqs[n] = wrk.format(m, p, headers, body)
  end
end

function request()
  i = i + 1
  if i > n then i = 1 end
  return reqs[i]
end
