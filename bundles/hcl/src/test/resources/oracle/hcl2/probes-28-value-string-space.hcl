a=<<-EOT
 ${"a"~}
 }
EOT
