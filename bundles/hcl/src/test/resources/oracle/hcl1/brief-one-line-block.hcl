ports { http = 4646, rpc = 4647 }
