-- Replays pre-signed requests (one per line: method, path, Authorization or "Cookie: …", body;
-- tab-separated),
-- each once, so every request to cardbazaar carries a fresh OAuth nonce. Signing happens before
-- the round, so wrk itself only sends bytes.
--
-- Arguments: the request file, then "statuses" to tally the answers' statuses (for cardbazaar's
-- rounds; the baseline's skip it, as a response callback costs wrk a little per answer). At the end
-- it prints how many requests it sent against how many the file held (more means the file wrapped
-- around and nonces were sent twice: the harness discards such a round) and the tally.
-- Globals, not locals: done() reads them from the thread with thread:get, which sees globals only.
reqs = {}
n = 0
i = 0
statuses = {}
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

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
  if args[2] == "statuses" then
    response = function(status, headers, body)
      statuses[status] = (statuses[status] or 0) + 1
    end
  end
end

function request()
  i = i + 1
  return reqs[((i - 1) % n) + 1]
end

function done(summary, latency, requests)
  for _, t in ipairs(threads) do
    local tally = {}
    local counted = t:get("statuses")
    if counted then
      for status, count in pairs(counted) do
        table.insert(tally, status .. "=" .. count)
      end
    end
    io.write(string.format("bench: sent %d of %d statuses %s\n", t:get("i"), t:get("n"), table.concat(tally, ",")))
  end
end
