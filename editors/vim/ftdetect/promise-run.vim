" *.workflow files are promise-run workflows.
autocmd BufRead,BufNewFile *.workflow setfiletype promise-run
