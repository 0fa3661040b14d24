t{
x={b:{á={for k in[]:""=>true}
"":{for x in[]:x=>true}}}
}