-- Neovim's built-in LSP client attached to `promise-run lsp` (the
-- language server tests): opens the buffer given on the command line,
-- waits for the server's diagnostics, asks for a completion and a hover,
-- shows the code lenses, and writes what it got as JSON to $NVIM_RESULT.
-- Works with Neovim 0.7+.
local binary, result_path = os.getenv("PROMISE_RUN"), os.getenv("NVIM_RESULT")
local buffer = vim.api.nvim_get_current_buf()
local client = vim.lsp.start_client({
  name = "promise-run",
  cmd = { binary, "lsp" },
  root_dir = vim.fn.getcwd(),
})
vim.lsp.buf_attach_client(buffer, client)
local got_diagnostics = vim.wait(15000, function() return #vim.diagnostic.get(buffer) > 0 end, 20)

local diagnostics = {}
for _, d in ipairs(vim.diagnostic.get(buffer)) do
  table.insert(diagnostics, { line = d.lnum, col = d.col, message = d.message, severity = d.severity })
end

local uri = vim.uri_from_bufnr(buffer)
local function ask(method, line, character)
  return vim.lsp.buf_request_sync(buffer, method, {
    textDocument = { uri = uri }, position = { line = line, character = character },
  }, 15000) or {}
end

local labels = {}
for _, response in pairs(ask("textDocument/completion", 3, 2)) do
  local result = response.result or {}
  for _, item in ipairs(result.items or result) do table.insert(labels, item.label) end
end
local hover = ""
for _, response in pairs(ask("textDocument/hover", 2, 7)) do
  if response.result and response.result.contents then hover = response.result.contents.value or "" end
end

-- The lenses as Neovim keeps them to show (`line: title`).
vim.lsp.codelens.refresh()
vim.wait(10000, function() return #vim.lsp.codelens.get(buffer) > 0 end, 20)
local lenses = {}
for _, lens in ipairs(vim.lsp.codelens.get(buffer)) do
  table.insert(lenses, lens.range.start.line .. ": " .. ((lens.command or {}).title or ""))
end

local file = io.open(result_path, "w")
file:write(vim.fn.json_encode({
  attached = got_diagnostics, diagnostics = diagnostics, completion = labels, hover = hover, lenses = lenses,
}))
file:close()
vim.lsp.stop_client(client)
vim.wait(5000, function() return vim.lsp.get_client_by_id(client) == nil end, 20)
vim.cmd("qa!")
