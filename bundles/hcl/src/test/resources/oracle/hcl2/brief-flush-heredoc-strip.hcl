a = <<-X
 %{for e in []}%{endfor}
${~false}
X
b = <<-EOT
 ${"a"~}
 }
EOT
